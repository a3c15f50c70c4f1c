package recorder

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// MergedSource describes one recording of a merge: where it sits in the
// merged timeline and what it held. [Meta].Merged lists them.
type MergedSource struct {
	// Name is the source's name in the merge (a file's base name without
	// its extension): its sessions are named "Name:session" and its runs
	// "Name: Run 1".
	Name string `json:"name"`
	// Title, Target and Server are the source's own [Meta] fields.
	Title  string `json:"title,omitempty"`
	Target string `json:"target,omitempty"`
	Server string `json:"server,omitempty"`
	// Created is the wall-clock start of the source's recording.
	Created time.Time `json:"created"`
	// Offset is how long after the merged recording's start (the earliest
	// source's) this source started; Length is how long it recorded.
	Offset time.Duration `json:"offset"`
	Length time.Duration `json:"length"`
	// Spans and Events count what the source held; HTTP counts the HTTP
	// exchanges it made (its [HTTPLog].Total), kept in the merge or not.
	Spans  int `json:"spans"`
	Events int `json:"events"`
	HTTP   int `json:"http,omitempty"`
	// Sessions are the source's sessions as the merge renamed them.
	Sessions []string `json:"sessions"`
	// Config is the source's configuration when the sources' differ (when
	// they agree it is the merged Meta's Config).
	Config json.RawMessage `json:"config,omitempty"`
}

// End is when the source stopped recording, as an offset from the merged
// recording's start.
func (m MergedSource) End() time.Duration { return m.Offset + m.Length }

// Merge joins recordings made at the same time by several processes or
// machines (generators of one load test) into one: its timelines are
// aligned by each recording's wall-clock start (Meta.Created), so the
// merged recording starts with the earliest one and every offset of a
// later one is moved by how much later it started. Each source's
// sessions are renamed "name:session" (one process row each in the
// exports), span IDs are renumbered in order of time with their parent
// links and events' span references following, and each source's runs
// are kept, named "name: Run 1", holding only that source's sessions.
// Meta.Merged lists the sources.
//
// The sources' HTTP exchanges are kept too, each source's shifted and
// renamed the same way, within [MaxExchanges] (see mergeHTTP).
//
// Nothing is aggregated: every span is kept, so counts in the merged
// [Summary] are the sums of the sources' and its percentiles are those of
// all the sources' spans together, exactly.
//
// names are the sources' names, one per snapshot; a repeated name gets a
// "-2", "-3"… suffix. Merging one snapshot returns it as it is. The clocks
// of different machines are trusted as they are: recordings that do not
// overlap in time, or overlap oddly, are merged all the same.
func Merge(snaps []*Snapshot, names []string) (*Snapshot, error) {
	if len(snaps) == 0 {
		return nil, errors.New("merge: no recordings given")
	}
	if len(names) != len(snaps) {
		return nil, fmt.Errorf("merge: %d recordings but %d names", len(snaps), len(names))
	}
	for i, s := range snaps {
		if s == nil {
			return nil, fmt.Errorf("merge: recording %s is missing", names[i])
		}
		if s.Sampled != nil {
			return nil, fmt.Errorf("merge: recording %s kept a sample of its spans (%s), and merging sampled recordings is not supported yet: record each generator with --max-spans above its number of spans", names[i], s.Sampled.Note())
		}
		if s.Meta.Created.IsZero() {
			return nil, fmt.Errorf("merge: recording %s has no start time (meta.created), so it cannot be placed on the others' clock", names[i])
		}
		if (s.Meta.Mode == ModeProxy) != (snaps[0].Meta.Mode == ModeProxy) {
			return nil, fmt.Errorf("merge: %s and %s were made differently (one by `inspector proxy`, one as the client): merge recordings of one kind", names[0], names[i])
		}
	}
	if len(snaps) == 1 {
		return snaps[0], nil
	}
	names = uniqueNames(names)

	origin := snaps[0].Meta.Created
	for _, s := range snaps[1:] {
		if s.Meta.Created.Before(origin) {
			origin = s.Meta.Created
		}
	}
	shifts := make([]time.Duration, len(snaps))
	for i, s := range snaps {
		d := s.Meta.Created.Sub(origin)
		if d > maxOffset || d+s.Now > maxOffset {
			return nil, fmt.Errorf("merge: %s started %v after the earliest recording: more than 100 years apart, one of the clocks is wrong", names[i], d)
		}
		shifts[i] = d
	}

	out := &Snapshot{Meta: mergeMeta(snaps, names, origin, shifts), Version: 1}

	// Spans: copied, shifted, renamed, then sorted by time (ties keep each
	// source's order) and renumbered.
	type ref struct {
		src int
		old SpanID
	}
	total := 0
	for _, s := range snaps {
		total += len(s.Spans)
	}
	copies := make([]Span, 0, total)
	origins := make([]ref, 0, total)
	for i, s := range snaps {
		for _, sp := range s.Spans {
			c := *sp
			c.Session = mergedSession(names[i], c.Session)
			c.Received, c.Queued, c.Serving, c.Answered = shiftOffset(c.Received, shifts[i]), shiftOffset(c.Queued, shifts[i]),
				shiftOffset(c.Serving, shifts[i]), shiftOffset(c.Answered, shifts[i])
			if c.Intended > 0 { // 0 is "not scheduled"
				c.Intended += shifts[i]
			}
			copies = append(copies, c)
			origins = append(origins, ref{i, sp.ID})
		}
	}
	order := make([]int, total)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(copies[a].Received, copies[b].Received) })
	newID := make(map[ref]SpanID, total)
	for n, i := range order {
		newID[origins[i]] = SpanID(n + 1)
	}
	out.Spans = make([]*Span, total)
	for n, i := range order {
		c := &copies[i]
		c.ID = SpanID(n + 1)
		if c.Parent != 0 {
			c.Parent = newID[ref{origins[i].src, c.Parent}] // 0 when the parent was not in the source
		}
		out.Spans[n] = c
	}

	// Events: shifted, renamed, their span references renumbered.
	for i, s := range snaps {
		for _, e := range s.Events {
			e.At = shiftOffset(e.At, shifts[i])
			e.Session = mergedSession(names[i], e.Session)
			if e.Span != 0 {
				e.Span = newID[ref{i, e.Span}]
			}
			out.Events = append(out.Events, e)
		}
	}
	slices.SortStableFunc(out.Events, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	if out.Events == nil {
		out.Events = []Event{}
	}

	// Runs: each source's, named after it and holding only its sessions.
	for i, s := range snaps {
		for _, r := range s.RunList() {
			if r.Open() {
				r.End = max(s.Now, r.Start)
			}
			r.Name = names[i] + ": " + r.Name
			r.Start, r.End = r.Start+shifts[i], r.End+shifts[i]
			r.Sessions = out.Meta.Merged[i].Sessions
			out.Runs = append(out.Runs, r)
		}
	}
	slices.SortStableFunc(out.Runs, func(a, b Run) int { return cmp.Compare(a.Start, b.Start) })

	out.HTTP = mergeHTTP(snaps, names, shifts)

	for i, s := range snaps {
		out.Now = max(out.Now, shifts[i]+s.Now)
	}
	return out, nil
}

// mergeMeta is the merged recording's Meta: the fields the sources agree
// on, or their distinct values joined, and the list of sources.
func mergeMeta(snaps []*Snapshot, names []string, origin time.Time, shifts []time.Duration) Meta {
	field := func(get func(Meta) string) string {
		var vals []string
		for _, s := range snaps {
			if v := get(s.Meta); v != "" && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		return strings.Join(vals, "; ")
	}
	m := Meta{
		Title:     fmt.Sprintf("merge of %d recordings: %s", len(snaps), strings.Join(names, ", ")),
		Created:   origin,
		Target:    field(func(m Meta) string { return m.Target }),
		Protocol:  field(func(m Meta) string { return m.Protocol }),
		Server:    field(func(m Meta) string { return m.Server }),
		Inspector: field(func(m Meta) string { return m.Inspector }),
		Mode:      snaps[0].Meta.Mode,
	}
	sameConfig := true
	for _, s := range snaps[1:] {
		if !bytes.Equal(s.Meta.Config, snaps[0].Meta.Config) {
			sameConfig = false
		}
	}
	if sameConfig {
		m.Config = snaps[0].Meta.Config
	}
	for i, s := range snaps {
		src := MergedSource{
			Name: names[i], Title: s.Meta.Title, Target: s.Meta.Target, Server: s.Meta.Server,
			Created: s.Meta.Created, Offset: shifts[i], Length: s.Now,
			Spans: len(s.Spans), Events: len(s.Events), Sessions: sourceSessions(s, names[i]),
		}
		if s.HTTP != nil {
			src.HTTP = s.HTTP.Total
		}
		if !sameConfig {
			src.Config = s.Meta.Config
		}
		m.Merged = append(m.Merged, src)
	}
	return m
}

// sourceSessions lists the sessions of s as the merge renames them, in
// the order they first appear; a source with none gets its name, so that
// its runs hold nothing of the others'.
func sourceSessions(s *Snapshot, name string) []string {
	var list []string
	add := func(session string) {
		if n := mergedSession(name, session); !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	for _, sp := range s.Spans {
		add(sp.Session)
	}
	for _, e := range s.Events {
		add(e.Session)
	}
	if len(list) == 0 {
		list = []string{name}
	}
	return list
}

// mergedSession names a source's session in the merge: "name:session".
func mergedSession(name, session string) string {
	if session == "" {
		return name
	}
	return name + ":" + session
}

// shiftOffset moves a phase time by d, leaving [Unset] as it is.
func shiftOffset(at, d time.Duration) time.Duration {
	if at == Unset {
		return at
	}
	return at + d
}

// uniqueNames returns names with repeats (and empty names) made distinct:
// "run", "run-2", "run-3".
func uniqueNames(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" {
			n = fmt.Sprintf("source%d", i+1)
		}
		base := n
		for k := 2; seen[n]; k++ {
			n = fmt.Sprintf("%s-%d", base, k)
		}
		seen[n] = true
		out[i] = n
	}
	return out
}
