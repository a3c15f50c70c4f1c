package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// How the main window shares its width. The timeline keeps at least
// centreShare of it: the side panels give up their room first, down to
// their floors (below its own width the left panel scrolls sideways).
const (
	handleWidth  = 16   // a side's handle: tap to fold or unfold, drag to resize
	centreShare  = 0.56 // the timeline's least share of the window's width
	leftFloor    = 280  // the narrowest the left panel is made
	leftMax      = 460  // the widest the left panel starts
	rightDefault = 0.22 // the details pane's share of the width, at first
	rightMax     = 420  // the widest the details pane starts
)

// paneWidths shares total among the left panel, the timeline and the
// details pane, each side shown or folded (folded: 0). leftWant and
// rightWant are the widths the sides would like; centreMin is the least
// the timeline can do with. When the timeline would get less than
// centreShare of total, the sides shrink first, in proportion to what
// they have above their floors.
func paneWidths(total, leftWant, rightWant, centreMin float32, leftOn, rightOn bool) (l, c, r float32) {
	avail := total - 2*handleWidth
	var lRoom, rRoom float32
	if leftOn {
		l = max(leftWant, leftFloor)
		lRoom = l - leftFloor
	}
	if rightOn {
		r = max(rightWant, detailsMinWidth)
		rRoom = r - detailsMinWidth
	}
	need := max(centreShare*total, centreMin)
	if short := need - (avail - l - r); short > 0 && lRoom+rRoom > 0 {
		take := min(short, lRoom+rRoom)
		l -= take * lRoom / (lRoom + rRoom)
		r -= take * rRoom / (lRoom + rRoom)
	}
	return l, max(avail-l-r, 0), r
}

// sidePanes is the main window's body: the panels on the left, the
// timeline in the middle, the details on the right, with a handle
// between each side and the timeline that folds the side (tap) or
// resizes it (drag). The details unfold when a request is selected and
// fold when the selection is cleared.
type sidePanes struct {
	widget.BaseWidget

	left, centre, right fyne.CanvasObject
	leftWant            func() float32 // the left panel's own width
	leftHandle          *paneHandle
	rightHandle         *paneHandle

	leftOn, rightOn     bool
	leftDrag, rightDrag float32 // widths set by dragging; 0 until then
	shown               recorder.SpanID

	// onChanged hears when a side folds or unfolds.
	onChanged func()
}

// newSidePanes lays left, the timeline and the details side by side;
// the details start folded, as nothing is selected yet.
// leftWant is the width the left panel would like.
func newSidePanes(left fyne.CanvasObject, leftWant func() float32, timeline fyne.CanvasObject, details *details) *sidePanes {
	p := &sidePanes{
		left:     left,
		centre:   timeline,
		right:    details,
		leftWant: leftWant,
		leftOn:   true,
	}
	p.leftHandle = newPaneHandle(true, func() { p.setLeft(!p.leftOn) }, func(dx float32) {
		p.leftDrag = max(p.widths().l+dx, leftFloor)
		p.Refresh()
	})
	p.rightHandle = newPaneHandle(false, func() { p.setRight(!p.rightOn) }, func(dx float32) {
		p.rightDrag = max(p.widths().r-dx, detailsMinWidth)
		p.Refresh()
	})
	details.onSpan = p.spanShown
	p.ExtendBaseWidget(p)
	p.sync()
	return p
}

// spanShown unfolds the details when a request is selected and folds
// them when the selection is cleared; the same request again (a live
// frame) changes nothing, so a person's fold holds.
func (p *sidePanes) spanShown(s *recorder.Span) {
	var id recorder.SpanID
	if s != nil {
		id = s.ID
	}
	if id == p.shown {
		return
	}
	p.shown = id
	p.setRight(id != 0)
}

// setLeft folds (false) or unfolds the left panel.
func (p *sidePanes) setLeft(on bool) {
	if p.leftOn != on {
		p.leftOn = on
		p.changed()
	}
}

// setRight folds (false) or unfolds the details pane.
func (p *sidePanes) setRight(on bool) {
	if p.rightOn != on {
		p.rightOn = on
		p.changed()
	}
}

// leftShown and rightShown say whether a side is unfolded.
func (p *sidePanes) leftShown() bool  { return p.leftOn }
func (p *sidePanes) rightShown() bool { return p.rightOn }

func (p *sidePanes) changed() {
	p.sync()
	p.Refresh()
	if p.onChanged != nil {
		p.onChanged()
	}
}

// sync shows the sides that are unfolded and points the handles' arrows.
func (p *sidePanes) sync() {
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	show(p.left, p.leftOn)
	show(p.right, p.rightOn)
	p.leftHandle.setFolded(!p.leftOn)
	p.rightHandle.setFolded(!p.rightOn)
}

type paneSizes struct{ l, c, r float32 }

// widths shares the current width.
func (p *sidePanes) widths() paneSizes {
	total := p.Size().Width
	lw := p.leftDrag
	if lw == 0 {
		lw = min(p.leftWant(), leftMax)
	}
	rw := p.rightDrag
	if rw == 0 {
		rw = min(rightDefault*total, rightMax)
	}
	l, c, r := paneWidths(total, lw, rw, p.centre.MinSize().Width, p.leftOn, p.rightOn)
	return paneSizes{l, c, r}
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (p *sidePanes) CreateRenderer() fyne.WidgetRenderer {
	return &sidePanesRenderer{p: p, objects: []fyne.CanvasObject{p.left, p.leftHandle, p.centre, p.rightHandle, p.right}}
}

type sidePanesRenderer struct {
	p       *sidePanes
	objects []fyne.CanvasObject
}

func (r *sidePanesRenderer) Layout(size fyne.Size) {
	p := r.p
	w := p.widths()
	x := float32(0)
	place := func(o fyne.CanvasObject, width float32) {
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(width, size.Height))
		x += width
	}
	place(p.left, w.l)
	place(p.leftHandle, handleWidth)
	place(p.centre, w.c)
	place(p.rightHandle, handleWidth)
	place(p.right, w.r)
}

func (r *sidePanesRenderer) MinSize() fyne.Size {
	p := r.p
	cm := p.centre.MinSize()
	w := 2*handleWidth + cm.Width
	if p.leftOn {
		w += leftFloor
	}
	if p.rightOn {
		w += detailsMinWidth
	}
	return fyne.NewSize(w, cm.Height)
}

func (r *sidePanesRenderer) Refresh() {
	r.Layout(r.p.Size())
	canvas.Refresh(r.p)
}

func (r *sidePanesRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *sidePanesRenderer) Destroy()                     {}

// paneHandle is the strip between a side panel and the timeline: a tap
// folds or unfolds the side, a drag resizes it. An arrow at its top
// points the way a tap moves the edge.
type paneHandle struct {
	widget.BaseWidget

	leading bool // the left side's handle
	folded  bool
	toggle  func()
	drag    func(dx float32)
	line    *canvas.Rectangle
	arrow   *widget.Icon
}

func newPaneHandle(leading bool, toggle func(), drag func(dx float32)) *paneHandle {
	h := &paneHandle{leading: leading, toggle: toggle, drag: drag,
		line: canvas.NewRectangle(theme.Color(theme.ColorNameSeparator)), arrow: widget.NewIcon(nil)}
	h.ExtendBaseWidget(h)
	h.setFolded(false)
	return h
}

// setFolded points the arrow: outwards folds, inwards unfolds.
func (h *paneHandle) setFolded(folded bool) {
	h.folded = folded
	// the left side folds to the left, the right side to the right
	if h.leading != folded {
		h.arrow.SetResource(theme.NavigateBackIcon())
	} else {
		h.arrow.SetResource(theme.NavigateNextIcon())
	}
}

// Tapped folds or unfolds the side.
func (h *paneHandle) Tapped(*fyne.PointEvent) { h.toggle() }

// Dragged resizes the side, unless it is folded.
func (h *paneHandle) Dragged(ev *fyne.DragEvent) {
	if !h.folded {
		h.drag(ev.Dragged.DX)
	}
}

// DragEnd is called when a drag ends; there is nothing left to do.
func (h *paneHandle) DragEnd() {}

// Cursor shows that the handle resizes.
func (h *paneHandle) Cursor() desktop.Cursor { return desktop.HResizeCursor }

// MinSize is the handle's width, and an arrow's height.
func (h *paneHandle) MinSize() fyne.Size { return fyne.NewSize(handleWidth, handleWidth) }

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (h *paneHandle) CreateRenderer() fyne.WidgetRenderer { return &paneHandleRenderer{h: h} }

type paneHandleRenderer struct{ h *paneHandle }

func (r *paneHandleRenderer) Layout(size fyne.Size) {
	r.h.line.Move(fyne.NewPos(size.Width/2, 0))
	r.h.line.Resize(fyne.NewSize(1, size.Height))
	r.h.arrow.Move(fyne.NewPos(0, theme.Padding()))
	r.h.arrow.Resize(fyne.NewSize(size.Width, size.Width))
}

func (r *paneHandleRenderer) MinSize() fyne.Size { return r.h.MinSize() }

func (r *paneHandleRenderer) Refresh() {
	r.h.line.FillColor = theme.Color(theme.ColorNameSeparator)
	r.h.line.Refresh()
	r.h.arrow.Refresh()
}

func (r *paneHandleRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.h.line, r.h.arrow}
}

func (r *paneHandleRenderer) Destroy() {}

// detachDetails lets the main window place the details pane itself (so
// that it can fold them): from then on the view shows the timeline alone.
// Call it before the view is shown.
func (t *TimelineView) detachDetails() *details {
	t.content = t.left
	return t.details
}
