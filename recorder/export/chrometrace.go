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
	ct := newChromeTrace(snap)
	ct.meta(tracePidConcurrency, 0, "process_name", "concurrency", 1)
	ct.addRequests()
	ct.addEvents()
	ct.addCounters()
	// Viewers sort by time; at equal times keep the order of emission, so
	// that parents open before and close after their children.
	slices.SortFunc(ct.timeline, func(a, b traceTimed) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
	})
	return ct.write(w)
}

// traceTrack is one thread of a session's process: a direction and kind.
type traceTrack struct {
	dir  recorder.Direction
	kind recorder.Kind
}

// traceSession is one session's process and its threads.
type traceSession struct {
	pid    int
	tids   map[traceTrack]int
	events bool
}

// The kinds of timed event in a Chrome trace's timeline.
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

// traceTimed is one timed event, kept as a small record without pointers
// (a trace of 100,000 requests has over a million) and rendered from the
// spans as it is written.
type traceTimed struct {
	at   time.Duration
	seq  uint32 // emission order, which breaks ties in time
	idx  uint32 // span, event or step index
	what uint8
}

// chromeTrace holds the layout and timeline of one Chrome trace being built.
type chromeTrace struct {
	snap      *recorder.Snapshot
	steps     []recorder.Step
	metas     []traceEvent // process and thread names, written first
	sessions  map[string]*traceSession
	timeline  []traceTimed
	cur       time.Duration // see nest
	pids      []int32       // per span
	tids      []int32       // per span
	owner     []int32       // a round's call index + 1, or 0
	rounds    map[int][]int // a call's index to its rounds' indices in order
	next      map[recorder.SpanID]*recorder.Span
	eventPids []int32 // per event
	args      traceArgs
}

// newChromeTrace prepares the trace of snap, with its calls' rounds found.
func newChromeTrace(snap *recorder.Snapshot) *chromeTrace {
	steps := recorder.Steps(snap)
	ct := &chromeTrace{
		snap:      snap,
		steps:     steps,
		sessions:  map[string]*traceSession{},
		timeline:  make([]traceTimed, 0, 6*len(snap.Spans)+len(snap.Events)+2*len(steps)),
		pids:      make([]int32, len(snap.Spans)),
		tids:      make([]int32, len(snap.Spans)),
		eventPids: make([]int32, len(snap.Events)),
		next:      recorder.NextRounds(snap),
	}
	ct.findRounds()
	return ct
}

// meta adds a process or thread name (what) and, when sort > 0, its sort index.
func (ct *chromeTrace) meta(pid, tid int, what, name string, sort int) {
	var a traceArgs
	a.str("name", name)
	ct.metas = append(ct.metas, traceEvent{Name: what, Ph: 'M', Pid: pid, Tid: tid, Args: a.done()})
	if sort > 0 {
		sortWhat := "process_sort_index"
		if what == "thread_name" {
			sortWhat = "thread_sort_index"
		}
		var a traceArgs
		a.num("sort_index", int64(sort))
		ct.metas = append(ct.metas, traceEvent{Name: sortWhat, Ph: 'M', Pid: pid, Tid: tid, Args: a.done()})
	}
}

// sessionOf returns the process of session id, naming it on first use.
func (ct *chromeTrace) sessionOf(id string) *traceSession {
	s := ct.sessions[id]
	if s == nil {
		s = &traceSession{pid: len(ct.sessions) + 2, tids: map[traceTrack]int{}}
		ct.sessions[id] = s
		name := "session " + id
		if id == "" {
			name = "session"
		}
		ct.meta(s.pid, 0, "process_name", name, s.pid)
	}
	return s
}

// tidOf returns the thread of sp's direction and kind in sess, naming it on first use.
func (ct *chromeTrace) tidOf(sess *traceSession, sp *recorder.Span) int {
	k := traceTrack{sp.Direction, sp.Kind}
	tid, ok := sess.tids[k]
	if !ok {
		tid = len(sess.tids) + 2
		sess.tids[k] = tid
		ct.meta(sess.pid, tid, "thread_name", fmt.Sprintf("%s %s", sp.Direction, sp.Kind), tid)
	}
	return tid
}

// add appends one timed event to the timeline.
//
// The events of one async id are added depth first (a parent's b, its
// children, its e) with times never going back (see nest), so that sorting
// by time, then by the order added, keeps them nested.
func (ct *chromeTrace) add(at time.Duration, idx int, what uint8) {
	ct.timeline = append(ct.timeline, traceTimed{at: at, seq: uint32(len(ct.timeline)), idx: uint32(idx), what: what})
}

// nest adds a timed event of the current async id, never before the last one.
func (ct *chromeTrace) nest(at time.Duration, idx int, what uint8) {
	ct.cur = max(at, ct.cur)
	ct.add(ct.cur, idx, what)
}

// findRounds groups each multi-round-trip call's rounds under it.
//
// A multi-round-trip call and its rounds are one async id, the call's:
// the rounds follow one another, with the client's fulfilment between
// them.
func (ct *chromeTrace) findRounds() {
	snap := ct.snap
	index := make(map[recorder.SpanID]int, len(snap.Spans))
	for i, sp := range snap.Spans {
		index[sp.ID] = i
	}
	ct.rounds = map[int][]int{}
	ct.owner = make([]int32, len(snap.Spans))
	for i, sp := range snap.Spans {
		if sp.Kind != recorder.KindRound || sp.Received == recorder.Unset {
			continue
		}
		if ci, ok := index[sp.Parent]; ok && ci != i && snap.Spans[ci].Kind == recorder.KindTool && snap.Spans[ci].Received != recorder.Unset {
			ct.rounds[ci] = append(ct.rounds[ci], i)
			ct.owner[i] = int32(ci + 1)
		}
	}
	for _, rs := range ct.rounds {
		slices.SortStableFunc(rs, func(a, b int) int {
			return cmp.Compare(snap.Spans[a].Round, snap.Spans[b].Round)
		})
	}
}

// ends returns when sp started serving and when it ended. Phases out of
// order (a damaged or hand-made file) are clamped so that every begin
// precedes its end.
func (ct *chromeTrace) ends(sp *recorder.Span) (serving, end time.Duration) {
	end = max(recorder.SpanEnd(ct.snap, sp), sp.Received)
	serving = min(max(sp.Serving, sp.Received), end)
	if sp.Serving == recorder.Unset {
		serving = end // never got a slot: queued to the end
	}
	return serving, end
}

// addRequests adds every request's events, a call's rounds with the call.
func (ct *chromeTrace) addRequests() {
	snap := ct.snap
	for i, sp := range snap.Spans {
		if sp.Received == recorder.Unset || ct.owner[i] != 0 {
			continue // rounds are added with their call
		}
		sess := ct.sessionOf(sp.Session)
		ct.pids[i], ct.tids[i] = int32(sess.pid), int32(ct.tidOf(sess, sp))
		ct.cur = 0
		rs, ok := ct.rounds[i]
		if !ok {
			ct.addRequest(i)
			continue
		}
		ct.addRoundTrips(i, rs)
	}
}

// addRoundTrips adds a multi-round-trip call's b, its rounds with the
// fulfilments between them, and its e.
func (ct *chromeTrace) addRoundTrips(i int, rs []int) {
	snap := ct.snap
	sp := snap.Spans[i]
	ct.nest(sp.Received, i, whatBegin)
	for k, ri := range rs {
		ct.pids[ri], ct.tids[ri] = ct.pids[i], ct.tids[i]
		ct.addRequest(ri)
		if k+1 < len(rs) && ct.next[snap.Spans[ri].ID] == snap.Spans[rs[k+1]] {
			if _, ok := recorder.FulfilmentTime(snap.Spans[ri], snap.Spans[rs[k+1]]); ok {
				ct.nest(snap.Spans[ri].Answered, ri, whatFulfilBegin)
				ct.nest(snap.Spans[rs[k+1]].Received, ri, whatFulfilEnd)
			}
		}
	}
	_, end := ct.ends(sp)
	ct.nest(end, i, whatEnd)
}

// addRequest adds the events of one request: its b, the time it was
// withheld from the client, its queued and serving phases, its e.
func (ct *chromeTrace) addRequest(i int) {
	sp := ct.snap.Spans[i]
	serving, end := ct.ends(sp)
	ct.nest(sp.Received, i, whatBegin)
	if sp.Direction == recorder.Incoming {
		queued := sp.Received
		if sp.Stalled > 0 {
			ct.nest(sp.Received, i, whatStalledBegin)
			queued = min(sp.Received+sp.Stalled, serving)
			ct.nest(queued, i, whatStalledEnd)
		}
		ct.nest(queued, i, whatQueuedBegin)
		ct.nest(serving, i, whatQueuedEnd)
		if sp.Serving != recorder.Unset {
			ct.nest(serving, i, whatServingBegin)
			ct.nest(end, i, whatServingEnd)
		}
	} else if sp.Stalled > 0 && sp.Answered != recorder.Unset {
		// The response was read, then withheld: the client saw it
		// only at the end of this slice, which ends the request.
		ct.nest(sp.Answered, i, whatStalledBegin)
		ct.nest(sp.Answered+sp.Stalled, i, whatStalledEnd)
	}
	ct.nest(end, i, whatEnd)
}

// addEvents adds the notifications and connection events as instants,
// naming each session's notifications thread on first use.
func (ct *chromeTrace) addEvents() {
	for i, e := range ct.snap.Events {
		sess := ct.sessionOf(e.Session)
		if !sess.events {
			sess.events = true
			ct.meta(sess.pid, traceTidEvents, "thread_name", "notifications", 1)
		}
		ct.eventPids[i] = int32(sess.pid)
		ct.add(e.At, i, whatInstant)
	}
}

// addCounters adds the in-flight and pending counters at every step.
func (ct *chromeTrace) addCounters() {
	for i, st := range ct.steps {
		ct.add(st.At, i, whatInFlight)
		ct.add(st.At, i, whatPending)
	}
}

// render turns a timed event into the trace event written for it.
func (ct *chromeTrace) render(t traceTimed) traceEvent {
	ct.args.b = ct.args.b[:0]
	switch t.what {
	case whatInstant:
		return ct.renderInstant(t)
	case whatInFlight:
		ct.args.num("requests", int64(ct.steps[t.idx].InFlight))
		return traceEvent{Name: "in flight", Ph: 'C', Ts: t.at, Pid: tracePidConcurrency, Args: ct.args.done()}
	case whatPending:
		ct.args.num("requests", int64(ct.steps[t.idx].Pending))
		return traceEvent{Name: "pending", Ph: 'C', Ts: t.at, Pid: tracePidConcurrency, Args: ct.args.done()}
	}
	return ct.renderSpanEvent(t)
}

// renderInstant renders a notification or connection event.
func (ct *chromeTrace) renderInstant(t traceTimed) traceEvent {
	e := &ct.snap.Events[t.idx]
	name := e.Method
	if name == "" {
		name = string(e.Kind)
	}
	ct.args.str("kind", string(e.Kind))
	if e.Span != 0 {
		ct.args.num("span", int64(e.Span))
	}
	if e.Text != "" {
		ct.args.str("text", e.Text)
	}
	return traceEvent{Name: name, Cat: string(e.Kind), Ph: 'i', Scope: 't', Ts: e.At,
		Pid: int(ct.eventPids[t.idx]), Tid: traceTidEvents, Args: ct.args.done()}
}

// renderSpanEvent renders a request's b or e, or one of its phases'.
func (ct *chromeTrace) renderSpanEvent(t traceTimed) traceEvent {
	sp := ct.snap.Spans[t.idx]
	ev := traceEvent{Cat: sp.Kind.String(), Ts: t.at, Pid: int(ct.pids[t.idx]), Tid: int(ct.tids[t.idx]), ID: sp.ID}
	if o := ct.owner[t.idx]; o != 0 {
		call := ct.snap.Spans[o-1]
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
		ct.args.float("stalled_ms", ms(sp.Stalled))
		ev.Args = ct.args.done()
	case whatFulfilBegin:
		f, _ := recorder.FulfilmentTime(sp, ct.next[sp.ID])
		ct.args.float("fulfilment_ms", ms(f))
		ct.args.num("round", int64(sp.Round))
		ev.Args = ct.args.done()
	case whatBegin:
		ev.Args = ct.requestArgs(sp)
	}
	return ev
}

// requestArgs renders the args of a request's own b: its direction,
// identity, outcome and times.
func (ct *chromeTrace) requestArgs(sp *recorder.Span) []byte {
	args := &ct.args
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
	if f, ok := recorder.FulfilmentTime(sp, ct.next[sp.ID]); ok {
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
	return args.done()
}

// write writes the header with the recording's metadata, then the process
// and thread names, then the timeline's events.
func (ct *chromeTrace) write(w io.Writer) error {
	snap := ct.snap
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"displayTimeUnit":"ms","otherData":`)
	writeJSON(bw, map[string]any{
		"title": snap.Meta.Title, "created": snap.Meta.Created, "target": snap.Meta.Target,
		"protocol": snap.Meta.Protocol, "server": snap.Meta.Server, "inspector": snap.Meta.Inspector,
	})
	bw.WriteString(",\n\"traceEvents\":[")
	var line []byte
	writeEvent := func(first bool, ev *traceEvent) error {
		line = line[:0]
		if !first {
			line = append(line, ',')
		}
		line = append(line, '\n')
		line = ev.appendTo(line)
		_, err := bw.Write(line)
		return err
	}
	for i := range ct.metas {
		if err := writeEvent(i == 0, &ct.metas[i]); err != nil {
			return fmt.Errorf("write chrome trace: %w", err)
		}
	}
	for _, t := range ct.timeline {
		ev := ct.render(t)
		if err := writeEvent(false, &ev); err != nil {
			return fmt.Errorf("write chrome trace: %w", err)
		}
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write chrome trace: %w", err)
	}
	return nil
}
