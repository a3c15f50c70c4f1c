package recorder

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Meta describes a recording as a whole.
type Meta struct {
	// Title is a short name for the run, shown in windows and reports.
	Title string `json:"title,omitempty"`
	// Created is the wall-clock time of the recording's start.
	Created time.Time `json:"created"`
	// Target says what the inspector was connected to ("demo", a command
	// line, a URL).
	Target string `json:"target,omitempty"`
	// Protocol is the negotiated MCP protocol version.
	Protocol string `json:"protocol,omitempty"`
	// Era is the protocol era the inspector asked for: legacy, auto or
	// modern ("" in a recording made before eras, or by the proxy,
	// whose client chooses). Protocol says which one it got.
	Era string `json:"era,omitempty"`
	// Server is the server's name and version as it reported them.
	Server string `json:"server,omitempty"`
	// Config is the callback and workload configuration of the run, as the
	// engine chose to describe it.
	Config json.RawMessage `json:"config,omitempty"`
	// Inspector is the version of Fanout Inspector that made the recording.
	Inspector string `json:"inspector,omitempty"`
	// Mode is how the recording was made: "" when the inspector was the
	// client, [ModeProxy] when it stood between a client and a server.
	Mode string `json:"mode,omitempty"`
	// Merged lists the recordings [Merge] joined into this one (by
	// `inspector report --merge`); empty for a recording made by one run.
	Merged []MergedSource `json:"merged,omitempty"`
}

// ModeProxy marks a recording made by `inspector proxy`: the client is
// someone else's, its server requests' waits are exact and how much of
// them was the client's work is estimated.
const ModeProxy = "proxy"

// Observer is told about each span that finishes and each event added, in
// the order they happen. Its methods are called synchronously by the
// goroutine that changed the recording, outside the recording's lock: they
// must return quickly (hand the work to another goroutine).
type Observer interface {
	SpanFinished(s *Span)
	EventAdded(e Event)
}

// Recording is the live, thread-safe store of one run. The engine appends
// spans and events to it; readers call [Recording.Snapshot], which never
// waits for the engine for longer than a slice copy.
//
// A *Span handed out by a snapshot, [Recording.Span] or an observer is
// immutable. The store changes an open span in place, under its lock, and
// hands out copies of open spans only (as many as are in flight); an
// ended span is shared, and a change after it ended replaces it with a
// changed copy.
//
// With [Recording.SetMaxSpans], the store keeps every span up to a cap
// and past it a sample of the ended ones, while its [Totals] keep the
// statistics of every span exact (see sampling.go).
type Recording struct {
	start time.Time

	mu   sync.Mutex
	meta Meta
	// slab holds the spans while every one is kept; from the first span
	// dropped, spans holds those kept, in ID order. spans[i].ID == i+1
	// for i < direct (every span in slab); past it IDs have gaps, and
	// open spans wait in pending until they end.
	slab    *spanSlabs
	spans   []*Span
	direct  int
	nextID  SpanID
	pending map[SpanID]*Span
	// firstOpen is the index in spans before which no span is open.
	firstOpen int
	events    []Event
	runs      []Run
	version   uint64
	observer  []Observer
	changes   bool // an observer wants every change (a ChangeObserver)
	sampler   *sampler
	eventCap  *eventSample // set with sampler: caps events
	// scrub, when set by AddSecrets, removes secrets from what is stored.
	scrub atomic.Pointer[scrubber]
	// exchanges are the HTTP exchanges, under their own lock (exchange.go).
	exchanges exchangeLog
}

// New starts a recording now.
func New(meta Meta) *Recording {
	now := time.Now()
	if meta.Created.IsZero() {
		meta.Created = now.Round(0)
	}
	return &Recording{start: now, meta: meta, slab: &spanSlabs{}}
}

// Start returns the instant the recording started (with its monotonic
// clock reading).
func (r *Recording) Start() time.Time { return r.start }

// Since returns t as an offset from the recording's start.
func (r *Recording) Since(t time.Time) time.Duration { return t.Sub(r.start) }

// Now returns the current offset from the recording's start.
func (r *Recording) Now() time.Duration { return time.Since(r.start) }

// Observe registers o to be told of finished spans and new events.
func (r *Recording) Observe(o Observer) {
	r.mu.Lock()
	r.addObserverLocked(o)
	r.mu.Unlock()
}

func (r *Recording) addObserverLocked(o Observer) {
	r.observer = append(r.observer, o)
	if _, ok := o.(ChangeObserver); ok {
		r.changes = true
	}
}

// SetMeta changes the recording's metadata through f.
func (r *Recording) SetMeta(f func(*Meta)) {
	r.mu.Lock()
	f(&r.meta)
	if sc := r.scrub.Load(); sc != nil {
		sc.meta(&r.meta)
	}
	r.version++
	r.mu.Unlock()
}

// Begin adds a span and returns its ID. The span's ID field is ignored;
// phases left at zero that the direction does not use are set to [Unset]
// by the caller's choice: Begin keeps them as given.
func (r *Recording) Begin(s Span) SpanID {
	if sc := r.scrub.Load(); sc != nil {
		sc.span(&s, nil) // outside the lock: the payload is scrubbed as it enters
	}
	r.mu.Lock()
	r.nextID++
	s.ID = r.nextID
	var p *Span
	if r.pending != nil {
		p = new(Span)
		*p = s
		r.pending[p.ID] = p
	} else {
		p = r.slab.add(&s)
		r.direct++
	}
	if r.sampler != nil {
		r.sampler.begin(p)
	}
	if !p.Open() { // begun ended
		r.finishLocked(p)
	}
	r.version++
	obs, changed := r.observer, r.changedLocked(p)
	r.mu.Unlock()
	notifyChanged(obs, changed)
	return p.ID
}

// changedLocked returns what to tell ChangeObservers of span p: nil when
// none listens, p itself once it ended, a copy while it is open (the
// store goes on changing it in place).
func (r *Recording) changedLocked(p *Span) *Span {
	if !r.changes {
		return nil
	}
	if !p.Open() {
		return p
	}
	c := *p
	return &c
}

// notifyChanged tells the observers that want to know of every change.
func notifyChanged(obs []Observer, s *Span) {
	if s == nil {
		return
	}
	for _, o := range obs {
		if c, ok := o.(ChangeObserver); ok {
			c.SpanChanged(s)
		}
	}
}

// find returns where span id is: its index in r.spans (or -1) and the
// span, or nil when the store has no such span (never had, or dropped it).
func (r *Recording) find(id SpanID) (int, *Span) {
	if id <= 0 {
		return -1, nil
	}
	if i := int(id) - 1; i < r.direct {
		return i, r.keptAt(i)
	}
	if p := r.pending[id]; p != nil {
		return -1, p
	}
	tail := r.spans[min(r.direct, len(r.spans)):]
	if j, ok := slices.BinarySearchFunc(tail, id, func(s *Span, id SpanID) int { return cmp.Compare(s.ID, id) }); ok {
		return r.direct + j, tail[j]
	}
	return -1, nil
}

// Update changes span id through f. If the update takes the span from
// open to ended, observers are told. Unknown IDs, and spans a sampled
// recording dropped, are ignored.
func (r *Recording) Update(id SpanID, f func(*Span)) {
	r.mu.Lock()
	i, old := r.find(id)
	if old == nil {
		r.mu.Unlock()
		return
	}
	wasOpen := old.Open()
	p := old
	if !wasOpen {
		// Ended spans are shared with snapshots: change a copy.
		p = new(Span)
		*p = *old
	}
	sc := r.scrub.Load()
	var before Span
	if r.sampler != nil || sc != nil {
		before = *old
	}
	f(p)
	if sc != nil {
		sc.span(p, &before) // only what changed: a payload is scrubbed once
	}
	p.ID = id
	if !wasOpen {
		if i >= 0 {
			r.setKept(i, p)
		}
		if r.sampler != nil {
			r.sampler.changed(&before, p)
		}
	} else if r.sampler != nil {
		r.sampler.update(&before, p)
	}
	finished := wasOpen && !p.Open()
	if finished {
		r.finishLocked(p)
	}
	r.version++
	obs := r.observer
	var changed *Span
	if !finished {
		changed = r.changedLocked(p)
	}
	r.mu.Unlock()
	if finished {
		for _, o := range obs {
			o.SpanFinished(p)
		}
	} else {
		notifyChanged(obs, changed)
	}
}

// finishLocked is told, under the lock, that span p has just ended: it
// moves the oldest-open mark, and a sampled store folds p into its
// totals and keeps or drops it.
func (r *Recording) finishLocked(p *Span) {
	for r.firstOpen < r.kept() && !r.keptAt(r.firstOpen).Open() {
		r.firstOpen++
	}
	if r.sampler != nil {
		r.sampler.finish(r, p)
	}
}

// ChangeObserver is an [Observer] that also wants to hear of every other
// change of a span: its Begin, its updates while open, and changes after
// it ended (an answer that could not be written turns an ok span into an
// aborted one). The change that ends a span goes to SpanFinished only.
// The rules of Observer apply: calls come outside the recording's lock,
// from the goroutine that made the change, so two changes of one span
// made by two goroutines may arrive in either order.
type ChangeObserver interface {
	Observer
	SpanChanged(s *Span)
}

// Span returns the current value of span id (a copy while it is open),
// or nil.
func (r *Recording) Span(id SpanID) *Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, p := r.find(id)
	if p != nil && p.Open() {
		c := *p
		return &c
	}
	return p
}

// ParentOf returns the parent of span id (0 for none) and whether span
// id is in the store, without the copy [Recording.Span] makes of an open
// span: walking up to a span's root is done for every request sent.
func (r *Recording) ParentOf(id SpanID) (parent SpanID, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, p := r.find(id)
	if p == nil {
		return 0, false
	}
	return p.Parent, true
}

// isOpen reports whether span id is in the store and open.
func (r *Recording) isOpen(id SpanID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, p := r.find(id)
	return p != nil && p.Open()
}

// AddEvent records an instant event.
func (r *Recording) AddEvent(e Event) {
	if sc := r.scrub.Load(); sc != nil {
		sc.event(&e)
	}
	r.mu.Lock()
	if r.eventCap != nil && !r.eventCap.add(r, &e) {
		r.version++
		r.mu.Unlock()
		return // counted, left out
	}
	r.events = append(r.events, e)
	r.version++
	obs := r.observer
	r.mu.Unlock()
	for _, o := range obs {
		o.EventAdded(e)
	}
}

// Outcome is how a span ended: its status, the error text when it did
// not end ok, and the result it answered with, if any.
type Outcome struct {
	Status Status
	Error  string
	// Code is the JSON-RPC error code of an answer that was a JSON-RPC
	// error, 0 otherwise.
	Code   int64
	Result json.RawMessage
}

// End ends span id at offset at with outcome o, unless it has ended
// already, and reports whether it ended it. It is the one way a span
// ends: a phase the span never reached starts at the end (a request
// given up on while queued was queued until then, not served), and it is
// answered at at, or as it reached its last phase if that was later.
func (r *Recording) End(id SpanID, at time.Duration, o Outcome) bool {
	ended := false
	r.Update(id, func(s *Span) {
		if !s.Open() {
			return
		}
		if s.Queued == Unset {
			s.Queued = max(at, s.Received)
		}
		if s.Serving == Unset {
			s.Serving = max(at, s.Queued)
		}
		s.Answered = max(at, s.Serving)
		s.Status, s.Error, s.Result = o.Status, o.Error, o.Result
		s.ErrorCode = o.Code
		ended = true
	})
	return ended
}

// AbortOpen ends every open span with [StatusAborted] at offset at, with
// reason as its error text, and returns how many it closed. The engine
// calls it when a connection is lost, so that no span stays open forever.
func (r *Recording) AbortOpen(at time.Duration, reason string) int {
	r.mu.Lock()
	var open []SpanID
	for i := r.firstOpen; i < r.kept(); i++ {
		if s := r.keptAt(i); s.Open() {
			open = append(open, s.ID)
		}
	}
	for id := range r.pending {
		open = append(open, id)
	}
	r.mu.Unlock()
	slices.Sort(open)
	n := 0
	for _, id := range open {
		if r.End(id, at, Outcome{Status: StatusAborted, Error: reason}) {
			n++
		}
	}
	return n
}

// Version increases with every change; readers compare it to skip work
// when nothing changed.
func (r *Recording) Version() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.version
}

// Snapshot returns a consistent view of the recording as it is now. It
// copies the slice of span pointers (8 bytes a span) and the spans still
// open, and shares everything else, so it is cheap enough to call for
// every frame of a live view.
func (r *Recording) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked()
}

// snapshotLocked is [Recording.Snapshot] for a caller holding r.mu.
func (r *Recording) snapshotLocked() *Snapshot {
	spans := make([]*Span, r.kept(), r.kept()+len(r.pending))
	if r.slab != nil {
		r.slab.pointers(spans)
	} else {
		copy(spans, r.spans)
	}
	n := 0
	for _, s := range spans[r.firstOpen:] {
		if s.Open() {
			n++
		}
	}
	open := make([]Span, 0, n) // one allocation for the copies of the open spans
	for i, s := range spans[r.firstOpen:] {
		if s.Open() {
			open = append(open, *s)
			spans[r.firstOpen+i] = &open[len(open)-1]
		}
	}
	if len(r.pending) > 0 {
		waiting := make([]Span, 0, len(r.pending))
		for _, s := range r.pending {
			waiting = append(waiting, *s)
		}
		slices.SortFunc(waiting, func(a, b Span) int { return cmp.Compare(a.ID, b.ID) })
		n := len(spans)
		for i := range waiting {
			spans = append(spans, &waiting[i])
		}
		if n > 0 && len(waiting) > 0 && spans[n-1].ID > waiting[0].ID {
			slices.SortStableFunc(spans, func(a, b *Span) int { return cmp.Compare(a.ID, b.ID) })
		}
	}
	snap := &Snapshot{
		Meta:    r.meta,
		Spans:   spans,
		Events:  r.events[:len(r.events):len(r.events)],
		Runs:    append([]Run(nil), r.runs...), // EndRun changes a run in place
		Version: r.version,
		Now:     time.Since(r.start),
		HTTP:    r.exchanges.log(),
	}
	if r.sampler != nil {
		snap.Sampled = r.sampler.sampling(len(spans), r.eventCap, len(r.events))
	}
	return snap
}

// Snapshot is a consistent, read-only view of a recording: taken from a
// live [Recording] or loaded from a file. Spans are ordered by ID, events
// by the order they were added. Nothing in it may be modified.
type Snapshot struct {
	Meta   Meta
	Spans  []*Span
	Events []Event
	// Runs are the named segments of the recording, in the order they
	// began: see [Run] and [Snapshot.RunList].
	Runs []Run
	// Version is the recording's version when the snapshot was taken.
	Version uint64
	// Now is the offset at which the snapshot was taken; for a loaded
	// recording, the end of the last span or event.
	Now time.Duration
	// Sampled is set when the recording kept only some of its spans
	// ([Recording.SetMaxSpans]): it says how many, and carries the
	// [Totals] of every span, from which [Summarize] and [Series] give
	// exact figures. Nil when every span is in Spans.
	Sampled *Sampling
	// HTTP holds the HTTP exchanges of a session over HTTP (see
	// [Exchange]), nil when there were none.
	HTTP *HTTPLog
}

// SpanByID returns the span with id, or nil (a nil snapshot, id 0, a span
// not in it). Spans are in ID order and IDs start at 1, so it is usually
// the span at id-1; a snapshot with gaps (a merge, a damaged file) is
// searched.
func (s *Snapshot) SpanByID(id SpanID) *Span {
	if s == nil || id <= 0 {
		return nil
	}
	if i := int(id) - 1; i < len(s.Spans) && s.Spans[i].ID == id {
		return s.Spans[i]
	}
	for _, sp := range s.Spans {
		if sp.ID == id {
			return sp
		}
	}
	return nil
}

// NewSpan returns a span of the given direction and method with every
// phase [Unset], ready to be filled in and passed to [Recording.Begin].
func NewSpan(session string, dir Direction, method string) Span {
	return Span{
		Session: session, Direction: dir, Method: method, Kind: KindOf(method),
		Received: Unset, Queued: Unset, Serving: Unset, Answered: Unset,
	}
}
