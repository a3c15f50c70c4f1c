package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// printHTTP prints the HTTP exchanges of snap (`report --http`): for a
// person, each exchange on a line (number, method, status, path, what it
// carried, duration, start) followed by its headers (> sent, < received),
// its bodies and an event stream's events; with asJSON, the recording's
// "http" object as saved.
func printHTTP(w io.Writer, snap *recorder.Snapshot, asJSON bool) {
	log := snap.HTTP
	if asJSON {
		if log == nil {
			log = &recorder.HTTPLog{Exchanges: []*recorder.Exchange{}}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(log)
		return
	}
	if log == nil {
		fmt.Fprintln(w, "No HTTP exchanges: the recording was not made over HTTP (stdio and the in-process demo have none), or by a version of the inspector that did not record them.")
		return
	}
	fmt.Fprint(w, plural(log.Total, "HTTP exchange"))
	if d := log.Dropped(); d > 0 {
		fmt.Fprintf(w, " (%d shown: the first and the latest; %d left out)", len(log.Exchanges), d)
	}
	fmt.Fprintln(w)
	for _, x := range log.Exchanges {
		fmt.Fprintln(w)
		printExchange(w, x, snap.Now)
	}
}

// printExchange prints one exchange.
func printExchange(w io.Writer, x *recorder.Exchange, now time.Duration) {
	status := "—"
	if x.Status != 0 {
		status = fmt.Sprintf("%d %s", x.Status, http.StatusText(x.Status))
	}
	what := x.RPC
	if m := recorder.HeaderValue(x.RequestHeaders, "Mcp-Method"); m != "" && what == "" {
		what = m
	}
	took := fmt.Sprintf("%.1f ms", float64(x.Duration(now))/float64(time.Millisecond))
	if x.Open() {
		took = "still open when saved"
	}
	fmt.Fprintf(w, "#%d %s %s  %s", x.ID, recorder.PlainLine(x.Method), recorder.PlainLine(urlPath(x.URL)), status)
	if what != "" {
		fmt.Fprintf(w, "  %s", recorder.PlainLine(what))
	}
	fmt.Fprintf(w, "  %s  at %.3fs", took, x.Sent.Seconds())
	if x.Session != "" {
		fmt.Fprintf(w, "  (%s)", recorder.PlainLine(x.Session))
	}
	fmt.Fprintln(w)
	if x.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", recorder.PlainLine(x.Error))
	}
	for _, h := range x.RequestHeaders {
		fmt.Fprintf(w, "  > %s: %s\n", recorder.PlainLine(h.Name), recorder.PlainLine(h.Value))
	}
	for _, h := range x.ResponseHeaders {
		fmt.Fprintf(w, "  < %s: %s\n", recorder.PlainLine(h.Name), recorder.PlainLine(h.Value))
	}
	if x.RequestBody != "" {
		fmt.Fprintf(w, "  request body%s: %s\n", bodySize(x.RequestBody, x.RequestBytes), recorder.PlainLine(x.RequestBody))
	}
	if x.ResponseBody != "" {
		fmt.Fprintf(w, "  response body%s: %s\n", bodySize(x.ResponseBody, x.ResponseBytes), recorder.PlainLine(x.ResponseBody))
	}
	if x.EventCount == 0 && strings.HasPrefix(recorder.HeaderValue(x.ResponseHeaders, "Content-Type"), "text/event-stream") {
		fmt.Fprintln(w, "  event stream: no events")
	}
	if x.EventCount > 0 {
		fmt.Fprintf(w, "  event stream: %s", plural(x.EventCount, "event"))
		if len(x.Events) < x.EventCount {
			fmt.Fprintf(w, " (the first %d kept)", len(x.Events))
		}
		fmt.Fprintln(w)
		for _, e := range x.Events {
			fmt.Fprintf(w, "    at %.3fs", e.At.Seconds())
			if e.Event != "" {
				fmt.Fprintf(w, " event %s", recorder.PlainLine(e.Event))
			}
			if e.ID != "" {
				fmt.Fprintf(w, " id %s", recorder.PlainLine(e.ID))
			}
			if e.Data == "" {
				fmt.Fprintln(w, " (no data)")
				continue
			}
			fmt.Fprintf(w, ": %s\n", recorder.PlainLine(e.Data))
		}
	}
}

// urlPath is the path and query of u, or u itself when it does not parse.
func urlPath(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return u
	}
	return p.RequestURI()
}

// bodySize says how much of a body is shown when it was cut.
func bodySize(kept string, total int64) string {
	if total > int64(len(kept)) {
		return fmt.Sprintf(" (first %d of %d bytes)", len(kept), total)
	}
	return ""
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
