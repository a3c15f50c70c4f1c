package recorder

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// traceEvent is one event of the Chrome Trace Event Format.
type traceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	ID    string         `json:"id,omitempty"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
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
	var events []traceEvent
	meta := func(pid, tid int, what, name string, sort int) {
		events = append(events, traceEvent{Name: what, Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": name}})
		if sort > 0 {
			sortWhat := "process_sort_index"
			if what == "thread_name" {
				sortWhat = "thread_sort_index"
			}
			events = append(events, traceEvent{Name: sortWhat, Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"sort_index": sort}})
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
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

	for _, sp := range snap.Spans {
		if sp.Received == Unset {
			continue
		}
		sess := sessionOf(sp.Session)
		tid := tidOf(sess, sp)
		end := spanEnd(snap, sp)
		id := fmt.Sprintf("0x%x", int64(sp.ID))
		cat := string(sp.Kind)
		name := sp.Method
		if sp.Name != "" {
			name += " " + sp.Name
		}
		status := string(sp.Status)
		if sp.Open() {
			status = "open"
		}
		args := map[string]any{"span": sp.ID, "status": status, "direction": sp.Direction}
		if sp.RequestID != "" {
			args["request_id"] = sp.RequestID
		}
		if sp.Parent != 0 {
			args["parent"] = sp.Parent
		}
		if sp.Round != 0 {
			args["round"] = sp.Round
		}
		if sp.Error != "" {
			args["error"] = sp.Error
		}
		if !sp.Open() {
			args["total_ms"] = ms(sp.Total())
			if sp.Direction == Incoming {
				args["queue_ms"] = ms(sp.QueueTime())
				args["serve_ms"] = ms(sp.ServeTime())
			}
		}
		ev := func(name, ph string, at time.Duration, args map[string]any) {
			events = append(events, traceEvent{Name: name, Cat: cat, Ph: ph, Ts: us(at), Pid: sess.pid, Tid: tid, ID: id, Args: args})
		}
		ev(name, "b", sp.Received, args)
		if sp.Direction == Incoming {
			serving := sp.Serving
			if serving == Unset {
				serving = end // never got a slot: queued to the end
			}
			ev("queued", "b", sp.Received, nil)
			ev("queued", "e", serving, nil)
			if sp.Serving != Unset {
				ev("serving", "b", serving, nil)
				ev("serving", "e", end, nil)
			}
		}
		ev(name, "e", end, nil)
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
		args := map[string]any{"kind": e.Kind}
		if e.Text != "" {
			args["text"] = e.Text
		}
		if e.Span != 0 {
			args["span"] = e.Span
		}
		events = append(events, traceEvent{Name: name, Cat: string(e.Kind), Ph: "i", Scope: "t", Ts: us(e.At), Pid: sess.pid, Tid: traceTidEvents, Args: args})
	}
	for _, st := range Steps(snap) {
		events = append(events,
			traceEvent{Name: "in flight", Ph: "C", Ts: us(st.At), Pid: tracePidConcurrency, Args: map[string]any{"requests": st.InFlight}},
			traceEvent{Name: "pending", Ph: "C", Ts: us(st.At), Pid: tracePidConcurrency, Args: map[string]any{"requests": st.Pending}})
	}
	// Viewers sort by time; keep each span's own order at equal times so
	// that parents open before and close after their children.
	slices.SortStableFunc(events, func(a, b traceEvent) int {
		if (a.Ph == "M") != (b.Ph == "M") {
			if a.Ph == "M" {
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
	for i := range events {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		if err := enc.encode(&events[i]); err != nil {
			return fmt.Errorf("write chrome trace: %w", err)
		}
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write chrome trace: %w", err)
	}
	return nil
}
