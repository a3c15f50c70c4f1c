package export

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
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
	ID    recorder.SpanID // for async events; rendered as "0x…"
	Scope byte            // for instants
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
func WriteChromeTrace(w io.Writer, snap *recorder.Snapshot) error {
	if snap == nil {
		snap = &recorder.Snapshot{}
	}
	steps := recorder.Steps(snap)
	var metas []traceEvent // process and thread names, written first
	meta := func(pid, tid int, what, name string, sort int) {
		var a traceArgs
		a.str("name", name)
		metas = append(metas, traceEvent{Name: what, Ph: 'M', Pid: pid, Tid: tid, Args: a.done()})
		if sort > 0 {
			sortWhat := "process_sort_index"
			if what == "thread_name" {
				sortWhat = "thread_sort_index"
			}
			var a traceArgs
			a.num("sort_index", int64(sort))
			metas = append(metas, traceEvent{Name: sortWhat, Ph: 'M', Pid: pid, Tid: tid, Args: a.done()})
		}
	}
	meta(tracePidConcurrency, 0, "process_name", "concurrency", 1)

	type track struct {
		dir  recorder.Direction
		kind recorder.Kind
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
	tidOf := func(sess *session, sp *recorder.Span) int {
		k := track{sp.Direction, sp.Kind}
		tid, ok := sess.tids[k]
		if !ok {
			tid = len(sess.tids) + 2
			sess.tids[k] = tid
			meta(sess.pid, tid, "thread_name", fmt.Sprintf("%s %s", sp.Direction, sp.Kind), tid)
		}
		return tid
	}
	// The timed events are kept as small records without pointers (a
	// trace of 100,000 requests has over a million) and rendered from the
	// spans as they are written.
	const (
		whatBegin = iota // the request's own b
		whatQueuedBegin
		whatQueuedEnd
		whatServingBegin
		whatServingEnd
		whatStalledBegin
		whatStalledEnd
		whatFulfilBegin // between a round and the next, on the round
		whatFulfilEnd
		whatEnd // the request's own e
		whatInstant
		whatInFlight
		whatPending
	)
	type timed struct {
		at   time.Duration
		seq  uint32 // emission order, which breaks ties in time
		idx  uint32 // span, event or step index
		what uint8
	}
	timeline := make([]timed, 0, 6*len(snap.Spans)+len(snap.Events)+2*len(steps))
	// The events of one async id are added depth first (a parent's b, its
	// children, its e) with times never going back (cur), so that sorting
	// by time, then by the order added, keeps them nested.
	add := func(at time.Duration, idx int, what uint8) {
		timeline = append(timeline, timed{at: at, seq: uint32(len(timeline)), idx: uint32(idx), what: what})
	}
	var cur time.Duration
	nest := func(at time.Duration, idx int, what uint8) {
		cur = max(at, cur)
		add(cur, idx, what)
	}
	pids := make([]int32, len(snap.Spans))
	tids := make([]int32, len(snap.Spans))
	// A multi-round-trip call and its rounds are one async id, the call's:
	// the rounds follow one another, with the client's fulfilment between
	// them. rounds maps a call's index to its rounds' indices in order.
	index := make(map[recorder.SpanID]int, len(snap.Spans))
	for i, sp := range snap.Spans {
		index[sp.ID] = i
	}
	rounds := map[int][]int{}
	owner := make([]int32, len(snap.Spans)) // a round's call index + 1, or 0
	for i, sp := range snap.Spans {
		if sp.Kind != recorder.KindRound || sp.Received == recorder.Unset {
			continue
		}
		if ci, ok := index[sp.Parent]; ok && ci != i && snap.Spans[ci].Kind == recorder.KindTool && snap.Spans[ci].Received != recorder.Unset {
			rounds[ci] = append(rounds[ci], i)
			owner[i] = int32(ci + 1)
		}
	}
	for _, rs := range rounds {
		slices.SortStableFunc(rs, func(a, b int) int {
			return cmp.Compare(snap.Spans[a].Round, snap.Spans[b].Round)
		})
	}
	next := recorder.NextRounds(snap)
	// Phases out of order (a damaged or hand-made file) are clamped so that
	// every begin precedes its end.
	ends := func(sp *recorder.Span) (serving, end time.Duration) {
		end = max(recorder.SpanEnd(snap, sp), sp.Received)
		serving = min(max(sp.Serving, sp.Received), end)
		if sp.Serving == recorder.Unset {
			serving = end // never got a slot: queued to the end
		}
		return serving, end
	}
	// request adds the events of one request: its b, the time it was
	// withheld from the client, its queued and serving phases, its e.
	request := func(i int) {
		sp := snap.Spans[i]
		serving, end := ends(sp)
		nest(sp.Received, i, whatBegin)
		if sp.Direction == recorder.Incoming {
			queued := sp.Received
			if sp.Stalled > 0 {
				nest(sp.Received, i, whatStalledBegin)
				queued = min(sp.Received+sp.Stalled, serving)
				nest(queued, i, whatStalledEnd)
			}
			nest(queued, i, whatQueuedBegin)
			nest(serving, i, whatQueuedEnd)
			if sp.Serving != recorder.Unset {
				nest(serving, i, whatServingBegin)
				nest(end, i, whatServingEnd)
			}
		} else if sp.Stalled > 0 && sp.Answered != recorder.Unset {
			// The response was read, then withheld: the client saw it
			// only at the end of this slice, which ends the request.
			nest(sp.Answered, i, whatStalledBegin)
			nest(sp.Answered+sp.Stalled, i, whatStalledEnd)
		}
		nest(end, i, whatEnd)
	}
	for i, sp := range snap.Spans {
		if sp.Received == recorder.Unset || owner[i] != 0 {
			continue // rounds are added with their call
		}
		sess := sessionOf(sp.Session)
		pids[i], tids[i] = int32(sess.pid), int32(tidOf(sess, sp))
		cur = 0
		rs, ok := rounds[i]
		if !ok {
			request(i)
			continue
		}
		nest(sp.Received, i, whatBegin)
		for k, ri := range rs {
			pids[ri], tids[ri] = pids[i], tids[i]
			request(ri)
			if k+1 < len(rs) && next[snap.Spans[ri].ID] == snap.Spans[rs[k+1]] {
				if _, ok := recorder.FulfilmentTime(snap.Spans[ri], snap.Spans[rs[k+1]]); ok {
					nest(snap.Spans[ri].Answered, ri, whatFulfilBegin)
					nest(snap.Spans[rs[k+1]].Received, ri, whatFulfilEnd)
				}
			}
		}
		_, end := ends(sp)
		nest(end, i, whatEnd)
	}
	eventPids := make([]int32, len(snap.Events))
	for i, e := range snap.Events {
		sess := sessionOf(e.Session)
		if !sess.events {
			sess.events = true
			meta(sess.pid, traceTidEvents, "thread_name", "notifications", 1)
		}
		eventPids[i] = int32(sess.pid)
		add(e.At, i, whatInstant)
	}
	for i, st := range steps {
		add(st.At, i, whatInFlight)
		add(st.At, i, whatPending)
	}
	// Viewers sort by time; at equal times keep the order of emission, so
	// that parents open before and close after their children.
	slices.SortFunc(timeline, func(a, b timed) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
	})

	var args traceArgs
	render := func(t timed) traceEvent {
		args.b = args.b[:0]
		switch t.what {
		case whatInstant:
			e := &snap.Events[t.idx]
			name := e.Method
			if name == "" {
				name = string(e.Kind)
			}
			args.str("kind", string(e.Kind))
			if e.Span != 0 {
				args.num("span", int64(e.Span))
			}
			if e.Text != "" {
				args.str("text", e.Text)
			}
			return traceEvent{Name: name, Cat: string(e.Kind), Ph: 'i', Scope: 't', Ts: e.At,
				Pid: int(eventPids[t.idx]), Tid: traceTidEvents, Args: args.done()}
		case whatInFlight:
			args.num("requests", int64(steps[t.idx].InFlight))
			return traceEvent{Name: "in flight", Ph: 'C', Ts: t.at, Pid: tracePidConcurrency, Args: args.done()}
		case whatPending:
			args.num("requests", int64(steps[t.idx].Pending))
			return traceEvent{Name: "pending", Ph: 'C', Ts: t.at, Pid: tracePidConcurrency, Args: args.done()}
		}
		sp := snap.Spans[t.idx]
		ev := traceEvent{Cat: sp.Kind.String(), Ts: t.at, Pid: int(pids[t.idx]), Tid: int(tids[t.idx]), ID: sp.ID}
		if o := owner[t.idx]; o != 0 {
			call := snap.Spans[o-1]
			ev.Cat, ev.ID = call.Kind.String(), call.ID
		}
		switch t.what {
		case whatQueuedBegin, whatQueuedEnd:
			ev.Name = "queued"
		case whatServingBegin, whatServingEnd:
			ev.Name = "serving"
		case whatStalledBegin, whatStalledEnd:
			ev.Name = "stalled"
		case whatFulfilBegin, whatFulfilEnd:
			ev.Name = "fulfilment"
		default:
			ev.Name = sp.Method
			if sp.Name != "" {
				ev.Name += " " + sp.Name
			}
			if sp.Kind == recorder.KindRound {
				ev.Name = fmt.Sprintf("round %d", sp.Round)
			}
		}
		switch t.what {
		case whatBegin, whatQueuedBegin, whatServingBegin, whatStalledBegin, whatFulfilBegin:
			ev.Ph = 'b'
		default:
			ev.Ph = 'e'
		}
		switch t.what {
		case whatStalledBegin:
			args.float("stalled_ms", ms(sp.Stalled))
			ev.Args = args.done()
			return ev
		case whatFulfilBegin:
			f, _ := recorder.FulfilmentTime(sp, next[sp.ID])
			args.float("fulfilment_ms", ms(f))
			args.num("round", int64(sp.Round))
			ev.Args = args.done()
			return ev
		case whatBegin:
		default:
			return ev
		}
		status := sp.Status.String()
		if sp.Open() {
			status = "open"
		}
		args.str("direction", sp.Direction.String())
		if sp.Parent != 0 {
			args.num("parent", int64(sp.Parent))
		}
		if !sp.Open() && sp.Direction == recorder.Incoming {
			args.float("handoff_ms", ms(sp.HandoffTime()))
			args.float("queue_ms", ms(sp.QueueTime()))
		}
		if sp.RequestID != "" {
			args.str("request_id", sp.RequestID)
		}
		if tp := serverTraceparent(sp); tp != "" {
			args.str("server_traceparent", tp)
		}
		if sp.Round != 0 {
			args.num("round", int64(sp.Round))
		}
		if sp.InputKey != "" {
			args.str("input_key", sp.InputKey)
		}
		if sp.Outcome != 0 {
			args.str("outcome", sp.Outcome.String())
		}
		if sp.InputRequests != 0 {
			args.num("input_requests", int64(sp.InputRequests))
		}
		if sp.InputTokens != 0 || sp.OutputTokens != 0 { // answered by a model endpoint
			args.num("input_tokens", int64(sp.InputTokens))
			args.num("output_tokens", int64(sp.OutputTokens))
		}
		if f, ok := recorder.FulfilmentTime(sp, next[sp.ID]); ok {
			args.float("fulfilment_ms", ms(f))
		}
		if sp.Stalled > 0 {
			args.float("stalled_ms", ms(sp.Stalled))
		}
		if !sp.Open() && sp.Direction == recorder.Incoming {
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
		ev.Args = args.done()
		return ev
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"displayTimeUnit":"ms","otherData":`)
	writeJSON(bw, map[string]any{
		"title": snap.Meta.Title, "created": snap.Meta.Created, "target": snap.Meta.Target,
		"protocol": snap.Meta.Protocol, "server": snap.Meta.Server, "inspector": snap.Meta.Inspector,
	})
	bw.WriteString(",\n\"traceEvents\":[")
	var line []byte
	write := func(first bool, ev *traceEvent) error {
		line = line[:0]
		if !first {
			line = append(line, ',')
		}
		line = append(line, '\n')
		line = ev.appendTo(line)
		_, err := bw.Write(line)
		return err
	}
	for i := range metas {
		if err := write(i == 0, &metas[i]); err != nil {
			return fmt.Errorf("write chrome trace: %w", err)
		}
	}
	for _, t := range timeline {
		ev := render(t)
		if err := write(false, &ev); err != nil {
			return fmt.Errorf("write chrome trace: %w", err)
		}
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write chrome trace: %w", err)
	}
	return nil
}
