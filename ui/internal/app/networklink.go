package app

import "github.com/fanout-inspector/inspector/recorder"

// The Network tab and the timeline select together: an exchange clicked
// selects, in the Gantt, the request it carried; a request selected in
// the Gantt selects and scrolls to the exchange that carried it while
// the tab is shown. recorder.ExchangeLinks pairs them.

// linkTimeline links the view with the timeline t both ways.
func (v *networkView) linkTimeline(t *TimelineView) {
	v.spans = t.snapshot
	v.onSelectSpan = func(id recorder.SpanID) {
		// a round the Gantt gives no row of its own (the only round of
		// a call) is shown by its call
		for s := t.snapshot().SpanByID(id); s != nil; s = t.snapshot().SpanByID(s.Parent) {
			if sel := t.gantt.Selected(); sel != nil && sel.ID == s.ID {
				return
			}
			t.gantt.Select(s.ID)
			if sel := t.gantt.Selected(); sel != nil && sel.ID == s.ID {
				return
			}
		}
	}
	onSelect := t.gantt.OnSelect
	t.gantt.OnSelect = func(s *recorder.Span) {
		if onSelect != nil {
			onSelect(s)
		}
		if s != nil && v.Visible() {
			v.showSpan(s.ID)
		}
	}
}

// linksNow returns the links of the exchanges shown with the timeline's
// spans, brought up to date.
func (v *networkView) linksNow() *recorder.ExchangeLinks {
	var snap *recorder.Snapshot
	if v.spans != nil {
		snap = v.spans()
	}
	v.links.Update(snap, v.log)
	return &v.links
}

// exchangeClicked tells the Gantt the request the exchange x carried.
func (v *networkView) exchangeClicked(x *recorder.Exchange) {
	if v.onSelectSpan == nil {
		return
	}
	if id := v.linksNow().Span(x.ID); id != 0 {
		v.onSelectSpan(id)
	}
}

// showSpan selects the exchange that carried the request id (one the
// Gantt selected) and scrolls to it, unless an exchange carrying it is
// selected already. It does not tell the Gantt.
func (v *networkView) showSpan(id recorder.SpanID) {
	v.refresh()
	links := v.linksNow()
	if v.selected != 0 && links.Span(v.selected) == id {
		return
	}
	x := links.Exchange(id)
	if x == 0 {
		return
	}
	for row, r := range v.rows {
		if r.ID == x {
			on := v.list.OnSelected
			v.list.OnSelected = nil
			v.list.Select(row) // scrolls to it
			v.list.OnSelected = on
			v.selected = x
			v.showDetail(r)
			return
		}
	}
}
