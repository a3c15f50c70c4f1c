package recorder

import (
	"fmt"
	"slices"
	"time"
)

// Run is one named segment of a recording: what one Run in the app, or one
// `inspector run`, made on the connection. A connection kept open for an
// afternoon holds many runs; statistics and verdicts describe one of them
// (see [Snapshot.Segment]).
//
// A span belongs to the run it was received in (sent in, for the client's
// own calls): from Start up to End. Offsets count from the recording's
// start, as a span's do.
type Run struct {
	// Name is the run's name in the recording, "Run 1", "Run 2", …
	Name  string        `json:"name"`
	Start time.Duration `json:"start"`
	// End is [Unset] while the run goes on.
	End time.Duration `json:"end"`
	// Tool and Dispatch say what was run and how the server's requests
	// were dispatched ("serial", "concurrent", "bounded 4"), when known.
	Tool     string `json:"tool,omitempty"`
	Dispatch string `json:"dispatch,omitempty"`
	// Sessions, when set, are the only sessions whose spans and events
	// belong to the run: in a merged recording ([Merge]) runs of
	// different sources overlap in time, and each holds its own source's.
	Sessions []string `json:"sessions,omitempty"`
}

// Open reports whether the run is still going on.
func (r Run) Open() bool { return r.End == Unset }

// Label says the run in a few words: "Run 2 · fanout · serial".
func (r Run) Label() string {
	s := r.Name
	if r.Tool != "" {
		s += " · " + r.Tool
	}
	if r.Dispatch != "" {
		s += " · " + r.Dispatch
	}
	return s
}

// Contains reports whether an instant at belongs to the run.
func (r Run) Contains(at time.Duration) bool {
	return at != Unset && at >= r.Start && (r.Open() || at < r.End)
}

// holds reports whether something of session at instant at belongs to
// the run: at is in it and, if the run names its sessions, session is
// one of them.
func (r Run) holds(session string, at time.Duration) bool {
	return r.Contains(at) && (len(r.Sessions) == 0 || slices.Contains(r.Sessions, session))
}

// BeginRun starts a run now, naming it "Run N" (N counts the recording's
// runs from 1), ends a run still open, and returns the run's number (its
// index in [Snapshot.Runs] plus one). tool and dispatch may be "".
func (r *Recording) BeginRun(tool, dispatch string) int {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.runs); n > 0 && r.runs[n-1].Open() {
		r.runs[n-1].End = now
	}
	r.runs = append(r.runs, Run{
		Name: fmt.Sprintf("Run %d", len(r.runs)+1), Start: now, End: Unset,
		Tool: tool, Dispatch: dispatch,
	})
	r.version++
	return len(r.runs)
}

// EndRun ends run n (as [Recording.BeginRun] numbered it) now, unless it
// has ended already or there is no such run.
func (r *Recording) EndRun(n int) {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if n < 1 || n > len(r.runs) || !r.runs[n-1].Open() {
		return
	}
	r.runs[n-1].End = max(now, r.runs[n-1].Start)
	r.version++
}

// RunList returns the snapshot's runs; a recording made without any (a
// file from an older version, a journal, a connection on which nothing was
// run yet) is one implicit run, "Run 1", over the whole recording.
func (s *Snapshot) RunList() []Run {
	if len(s.Runs) > 0 {
		return s.Runs
	}
	return []Run{{Name: "Run 1", Start: 0, End: Unset}}
}

// LatestRun returns the snapshot's last run (see [Snapshot.RunList]).
func (s *Snapshot) LatestRun() Run {
	runs := s.RunList()
	return runs[len(runs)-1]
}

// Segment returns the part of the snapshot that belongs to run: the spans
// received and the events added during it (of the run's sessions, if it
// names them), with every offset moved back
// by the run's start, so that the run starts at 0. Its Now is the run's
// length (so far, for a run still open), its Meta the snapshot's with the
// run's label as Title, and its Runs the run alone. The spans are copies:
// the snapshot is not changed. A parent outside the segment is kept as an
// ID that names no span of it.
func (s *Snapshot) Segment(run Run) *Snapshot {
	var g Segmenter
	return g.Segment(s, run)
}

// Segmenter makes the segments of one run ([Snapshot.Segment]) of the
// snapshots of a live recording, one after the other, copying only the
// spans that are new or changed since the last: a span a later snapshot
// holds at the same place as the same pointer is the same (the recorder
// changes a copy of an answered span), and so is its copy in the segment.
// A live view segments every frame; copying every span of a long run
// each time was a third of making a frame. Its zero value is ready; it is
// not safe for concurrent use.
type Segmenter struct {
	created  time.Time
	run      Run
	src, out []*Span // by index in the snapshot: the span copied last and its copy, or nil when not in the run
}

// Segment returns s.Segment(run), made with what the segments made
// before share with it.
func (g *Segmenter) Segment(s *Snapshot, run Run) *Snapshot {
	if !g.created.Equal(s.Meta.Created) || g.run.Start != run.Start || g.run.End != run.End ||
		!slices.Equal(g.run.Sessions, run.Sessions) || len(s.Spans) < len(g.src) {
		g.created, g.run, g.src, g.out = s.Meta.Created, run, g.src[:0], g.out[:0]
	}
	end := s.Now
	if !run.Open() {
		end = run.End
	}
	seg := &Snapshot{Meta: s.Meta, Version: s.Version, Now: max(end-run.Start, 0)}
	seg.Meta.Title = run.Label()
	shift := func(d time.Duration) time.Duration {
		if d == Unset {
			return d
		}
		return d - run.Start
	}
	copied := func(i int) bool { return i < len(g.src) && g.src[i] == s.Spans[i] }
	n, fresh := 0, 0
	for i, sp := range s.Spans {
		switch {
		case copied(i):
			if g.out[i] != nil {
				n++
			}
		case run.holds(sp.Session, sp.Received):
			n++
			fresh++
		}
	}
	copies := make([]Span, 0, fresh) // one allocation, not one a span: a live view does this every frame
	seg.Spans = make([]*Span, 0, n)
	for i, sp := range s.Spans {
		if !copied(i) {
			var c *Span
			if run.holds(sp.Session, sp.Received) {
				copies = append(copies, *sp)
				c = &copies[len(copies)-1]
				c.Received, c.Queued, c.Serving, c.Answered = shift(c.Received), shift(c.Queued), shift(c.Serving), shift(c.Answered)
			}
			if i < len(g.src) {
				g.src[i], g.out[i] = sp, c
			} else {
				g.src, g.out = append(g.src, sp), append(g.out, c)
			}
		}
		if g.out[i] != nil {
			seg.Spans = append(seg.Spans, g.out[i])
		}
	}
	for _, e := range s.Events {
		if run.holds(e.Session, e.At) {
			e.At -= run.Start
			seg.Events = append(seg.Events, e)
		}
	}
	r := run
	r.Start = 0
	if !r.Open() {
		r.End = seg.Now
	}
	seg.Runs = []Run{r}
	if s.Sampled != nil {
		sm := *s.Sampled
		sm.Kept = len(seg.Spans)
		if len(s.RunList()) > 1 {
			// The totals count every run together: this run's figures
			// can only come from its spans kept.
			sm.Totals = nil
		}
		seg.Sampled = &sm
	}
	return seg
}

// checkRuns says what is wrong with a loaded file's runs.
func checkRuns(runs []Run) error {
	for i, r := range runs {
		if err := checkOffset(fmt.Sprintf("runs[%d].start", i), r.Start); err != nil {
			return err
		}
		if r.Open() {
			continue // saved while the run went on
		}
		if err := checkOffset(fmt.Sprintf("runs[%d].end", i), r.End); err != nil {
			return err
		}
		if r.End < r.Start {
			return fmt.Errorf("run %d (%q) ends before it starts: the file was edited or is damaged", i+1, r.Name)
		}
	}
	return nil
}
