package timeline

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
)

// tooltip returns the lines of the tooltip shown for the request or
// notification under the pointer, or nil.
func (g *Gantt) tooltip() []string {
	if g.snap != nil && g.hoverEvent >= 0 && g.hoverEvent < len(g.snap.Events) {
		return eventSummary(g.snap, g.snap.Events[g.hoverEvent])
	}
	if g.hoverRow < 0 || g.hoverRow >= len(g.layout.rows) {
		return nil
	}
	ref := g.layout.rows[g.hoverRow]
	s := g.snap.Spans[ref.span]
	lines := spanSummary(g.snap, s)
	if label := rowLabel(s); Truncate(label, g.labelChars(int(ref.depth))) != label && !strings.Contains(lines[0], label) {
		lines = append([]string{label}, lines...) // the label, cut in its column, whole
	}
	if span := g.layout.foldable(g.hoverRow); span >= 0 && g.layout.collapsed(span) {
		lines = append(lines, fmt.Sprintf("%d requests folded under it: click ▸ to unfold", g.layout.descendants(span)))
	}
	return lines
}

// hideTooltip takes the tooltip off the screen until the pointer moves
// again: after a zoom, a pan or a scroll what it described has moved
// from under the pointer.
func (g *Gantt) hideTooltip() {
	if g.hoverRow >= 0 || g.hoverEvent >= 0 {
		g.hoverRow, g.hoverEvent = -1, -1
		g.changed()
	}
}

// eventSummary describes a notification in a few lines, for the tooltip.
func eventSummary(snap *recorder.Snapshot, e recorder.Event) []string {
	if e.Kind == recorder.EventLog {
		return logSummary(snap, e) // logmarks.go
	}
	name := e.Method
	if name == "" {
		name = string(e.Kind)
	}
	lines := []string{fmt.Sprintf("%s at %s", name, FormatOffset(e.At))}
	if e.Stalled > 0 {
		lines = append(lines, fmt.Sprintf("stalled %s (read, not yet seen by the client)", FormatDuration(e.Stalled)))
	}
	if e.Text != "" {
		lines = append(lines, Truncate(e.Text, 80))
	}
	if len(e.Data) > 0 {
		lines = append(lines, Truncate(string(e.Data), 80))
	}
	if s := snap.SpanByID(e.Span); s != nil {
		lines = append(lines, fmt.Sprintf("about #%d %s", s.ID, SpanLabel(s)))
	}
	return lines
}

// spanSummary describes a span in a few lines, for the tooltip.
func spanSummary(snap *recorder.Snapshot, s *recorder.Span) []string {
	status := s.Status.String()
	if s.Open() {
		status = "in flight"
	}
	head := fmt.Sprintf("#%d %s (%s, %s)", s.ID, SpanLabel(s), s.Direction, status)
	lines := []string{head}
	lines = append(lines, roundSummary(snap, s)...)
	if st := stalledText(s); st != "" {
		lines = append(lines, st)
	}
	if s.Error != "" {
		lines = append(lines, "error: "+Truncate(s.Error, 80))
	}
	end := s.Answered
	if end == recorder.Unset {
		end = snap.Now
	}
	if s.Direction == recorder.Incoming {
		h, q, sv := s.HandoffTime(), s.QueueTime(), s.ServeTime()
		switch {
		case s.Queued == recorder.Unset:
			h, q = end-s.Received, 0
		case s.Serving == recorder.Unset:
			q = end - s.Queued
		case s.Answered == recorder.Unset:
			sv = end - s.Serving
		}
		lines = append(lines, fmt.Sprintf("hand-off %s · queued %s · serving %s · total %s",
			FormatDuration(h), FormatDuration(q), FormatDuration(sv), FormatDuration(end-s.Received)))
	} else {
		lines = append(lines, "round trip "+FormatDuration(end-s.Received))
	}
	start := "sent" // a call the client made, or a round of one
	if s.Direction == recorder.Incoming {
		start = "received"
	}
	lines = append(lines, fmt.Sprintf("%s %s → answered %s", start, FormatOffset(s.Received), FormatOffset(s.Answered)))
	if s.Parent != 0 {
		for _, p := range snap.Spans {
			if p.ID == s.Parent {
				lines = append(lines, fmt.Sprintf("caused by #%d %s", p.ID, SpanLabel(p)))
				break
			}
		}
	}
	return lines
}

// placeTooltip shows the tooltip of the request or notification under
// the pointer.
func (r *ganttRenderer) placeTooltip() {
	g := r.g
	size := g.Size()
	fg := theme.Color(theme.ColorNameForeground)
	small := theme.Size(theme.SizeNameCaptionText)
	lines := g.tooltip()
	if len(lines) == 0 {
		r.tipBg.Hide()
		hideFrom(r.tip, 0)
	} else {
		var w, h float32
		for i, l := range lines {
			t := r.text(&r.tip, i, small)
			t.Text, t.Color = l, fg
			ms := t.MinSize()
			w = max(w, ms.Width)
			h += ms.Height
		}
		hideFrom(r.tip, len(lines))
		w, h = w+12, h+8
		pos := g.hoverPos.Add(fyne.NewPos(14, 16))
		if pos.X+w > size.Width {
			pos.X = max(g.hoverPos.X-w-8, 0)
		}
		if pos.Y+h > size.Height {
			pos.Y = max(g.hoverPos.Y-h-8, 0)
		}
		r.tipBg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
		r.tipBg.Move(pos)
		r.tipBg.Resize(fyne.NewSize(w, h))
		r.tipBg.Show()
		r.tipBg.Refresh()
		y := pos.Y + 4
		for i := range lines {
			t := r.tip[i]
			t.Move(fyne.NewPos(pos.X+6, y))
			t.Resize(t.MinSize())
			t.Refresh()
			y += t.MinSize().Height
		}
	}
}
