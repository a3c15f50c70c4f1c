package recorder

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// traceEvent is one event of the Chrome Trace Event Format. Args is
// already JSON; the writer renders events by hand because a trace of
// 100,000 requests has a million events.
type traceEvent struct {
	Name  string
	Cat   string
	Ph    byte
	Ts    time.Duration
	Pid   int
	Tid   int
	ID    SpanID // for async events; rendered as "0x…"
	Scope byte   // for instants
	Args  []byte
}

// appendTo renders e as one JSON object.
func (e *traceEvent) appendTo(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, e.Name)
	if e.Cat != "" {
		b = append(b, `,"cat":`...)
		b = appendJSONString(b, e.Cat)
	}
	b = append(b, `,"ph":"`...)
	b = append(b, e.Ph)
	b = append(b, `","ts":`...)
	b = appendMicros(b, e.Ts)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.Pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(e.Tid), 10)
	if e.ID != 0 {
		b = append(b, `,"id":"0x`...)
		b = strconv.AppendInt(b, int64(e.ID), 16)
		b = append(b, '"')
	}
	if e.Scope != 0 {
		b = append(b, `,"s":"`...)
		b = append(b, e.Scope, '"')
	}
	if len(e.Args) > 0 {
		b = append(b, `,"args":`...)
		b = append(b, e.Args...)
	}
	return append(b, '}')
}

// appendMicros writes d in microseconds with up to three decimals.
func appendMicros(b []byte, d time.Duration) []byte {
	if d%time.Microsecond == 0 {
		return strconv.AppendInt(b, int64(d/time.Microsecond), 10)
	}
	return strconv.AppendFloat(b, float64(d)/float64(time.Microsecond), 'f', -1, 64)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s) // rare: let the library escape it
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// traceArgs builds an args object from key, value pairs, skipping empty
// strings and zero numbers where keep is false.
type traceArgs struct{ b []byte }

func (a *traceArgs) sep(key string) {
	if len(a.b) == 0 {
		a.b = append(a.b, '{')
	} else {
		a.b = append(a.b, ',')
	}
	a.b = appendJSONString(a.b, key)
	a.b = append(a.b, ':')
}
func (a *traceArgs) str(key, v string) {
	a.sep(key)
	a.b = appendJSONString(a.b, v)
}
func (a *traceArgs) num(key string, v int64) {
	a.sep(key)
	a.b = strconv.AppendInt(a.b, v, 10)
}
func (a *traceArgs) float(key string, v float64) {
	a.sep(key)
	a.b = strconv.AppendFloat(a.b, v, 'f', -1, 64)
}
func (a *traceArgs) done() []byte {
	if len(a.b) == 0 {
		return nil
	}
	return append(a.b, '}')
}

// The Chrome trace's fixed process and thread numbers.
const (
	tracePidConcurrency = 1 // counters of the whole recording
	traceTidEvents      = 1 // notifications, per session
)

// WriteChromeTrace writes snap in the Chrome Trace Event Format (JSON
// object form), which Perfetto (ui.perfetto.dev) and chrome://tracing
// open:
//
//   - each session is a process, named "session ID"; each direction and
//     kind of request a thread in it ("incoming sampling", "outgoing
//     tool"), and its notifications a thread named "notifications";
//   - each request is a nestable async event (ph "b"/"e", cat = its kind,
//     id = its span ID) with, for an incoming request, its "queued" and
//     "serving" phases as children;
//   - notifications and connection events are instants (ph "i");
//   - process "concurrency" holds counters (ph "C") of requests in flight
//     and pending.
//
// Timestamps are microseconds from the recording's start. Open spans end
// at snap.Now with status "open".
func WriteChromeTrace(w io.Writer, snap *Snapshot) error {
	if snap == nil {
		snap = &Snapshot{}
	}
	steps := Steps(snap)
	events := make([]traceEvent, 0, 32+6*len(snap.Spans)+len(snap.Events)+2*len(steps))
	meta := func(pid, tid int, what, name string, sort int) {
		var a traceArgs
		a.str("name", name)
		events = append(events, traceEvent{Name: what, Ph: 'M', Pid: pid, Tid: tid, Args: a.done()})
		if sort > 0 {
			sortWhat := "process_sort_index"
			if what == "thread_name" {
				sortWhat = "thread_sort_index"
			}
			var a traceArgs
			a.num("sort_index", int64(sort))
			events = append(events, traceEvent{Name: sortWhat, Ph: 'M', Pid: pid, Tid: tid, Args: a.done()})
		}
	}
	meta(tracePidConcurrency, 0, "process_name", "concurrency", 1)

	type track struct {
		dir  Direction
		kind Kind
	}
	type session struct {
		pid    int
		tids   map[track]int
		events bool
	}
	sessions := map[string]*session{}
	sessionOf := func(id string) *session {
		s := sessions[id]
		if s == nil {
			s = &session{pid: len(sessions) + 2, tids: map[track]int{}}
			sessions[id] = s
			name := "session " + id
			if id == "" {
				name = "session"
			}
			meta(s.pid, 0, "process_name", name, s.pid)
		}
		return s
	}
	tidOf := func(sess *session, sp *Span) int {
		k := track{sp.Direction, sp.Kind}
		tid, ok := sess.tids[k]
		if !ok {
			tid = len(sess.tids) + 2
			sess.tids[k] = tid
			meta(sess.pid, tid, "thread_name", fmt.Sprintf("%s %s", sp.Direction, sp.Kind), tid)
		}
		return tid
	}
	for _, sp := range snap.Spans {
		if sp.Received == Unset {
			continue
		}
		sess := sessionOf(sp.Session)
		tid := tidOf(sess, sp)
		// Phases out of order (a damaged or hand-made file) are clamped so
		// that every begin precedes its end.
		end := max(spanEnd(snap, sp), sp.Received)
		cat := string(sp.Kind)
		name := sp.Method
		if sp.Name != "" {
			name += " " + sp.Name
		}
		status := string(sp.Status)
		if sp.Open() {
			status = "open"
		}
		var args traceArgs
		args.str("direction", string(sp.Direction))
		if sp.Parent != 0 {
			args.num("parent", int64(sp.Parent))
		}
		if !sp.Open() && sp.Direction == Incoming {
			args.float("queue_ms", ms(sp.QueueTime()))
		}
		if sp.RequestID != "" {
			args.str("request_id", sp.RequestID)
		}
		if sp.Round != 0 {
			args.num("round", int64(sp.Round))
		}
		if !sp.Open() && sp.Direction == Incoming {
			args.float("serve_ms", ms(sp.ServeTime()))
		}
		args.num("span", int64(sp.ID))
		args.str("status", status)
		if !sp.Open() {
			args.float("total_ms", ms(sp.Total()))
		}
		if sp.Error != "" {
			args.str("error", sp.Error)
		}
		ev := func(name string, ph byte, at time.Duration, args []byte) {
			events = append(events, traceEvent{Name: name, Cat: cat, Ph: ph, Ts: at, Pid: sess.pid, Tid: tid, ID: sp.ID, Args: args})
		}
		ev(name, 'b', sp.Received, args.done())
		if sp.Direction == Incoming {
			serving := min(max(sp.Serving, sp.Received), end)
			if sp.Serving == Unset {
				serving = end // never got a slot: queued to the end
			}
			ev("queued", 'b', sp.Received, nil)
			ev("queued", 'e', serving, nil)
			if sp.Serving != Unset {
				ev("serving", 'b', serving, nil)
				ev("serving", 'e', end, nil)
			}
		}
		ev(name, 'e', end, nil)
	}
	for _, e := range snap.Events {
		sess := sessionOf(e.Session)
		if !sess.events {
			sess.events = true
			meta(sess.pid, traceTidEvents, "thread_name", "notifications", 1)
		}
		name := e.Method
		if name == "" {
			name = string(e.Kind)
		}
		var args traceArgs
		args.str("kind", string(e.Kind))
		if e.Span != 0 {
			args.num("span", int64(e.Span))
		}
		if e.Text != "" {
			args.str("text", e.Text)
		}
		events = append(events, traceEvent{Name: name, Cat: string(e.Kind), Ph: 'i', Scope: 't', Ts: e.At, Pid: sess.pid, Tid: traceTidEvents, Args: args.done()})
	}
	for _, st := range steps {
		var in, pend traceArgs
		in.num("requests", int64(st.InFlight))
		pend.num("requests", int64(st.Pending))
		events = append(events,
			traceEvent{Name: "in flight", Ph: 'C', Ts: st.At, Pid: tracePidConcurrency, Args: in.done()},
			traceEvent{Name: "pending", Ph: 'C', Ts: st.At, Pid: tracePidConcurrency, Args: pend.done()})
	}
	// Viewers sort by time; keep each span's own order at equal times so
	// that parents open before and close after their children.
	slices.SortStableFunc(events, func(a, b traceEvent) int {
		if (a.Ph == 'M') != (b.Ph == 'M') {
			if a.Ph == 'M' {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Ts, b.Ts)
	})

	bw := bufio.NewWriterSize(w, 64<<10)
	enc := newLineEncoder(bw)
	bw.WriteString(`{"displayTimeUnit":"ms","otherData":`)
	enc.encode(map[string]any{
		"title": snap.Meta.Title, "created": snap.Meta.Created, "target": snap.Meta.Target,
		"protocol": snap.Meta.Protocol, "server": snap.Meta.Server, "inspector": snap.Meta.Inspector,
	})
	bw.WriteString(",\n\"traceEvents\":[")
	var line []byte
	for i := range events {
		line = line[:0]
		if i > 0 {
			line = append(line, ',')
		}
		line = append(line, '\n')
		line = events[i].appendTo(line)
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("write chrome trace: %w", err)
		}
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write chrome trace: %w", err)
	}
	return nil
}
