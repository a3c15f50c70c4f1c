package timeline

import "github.com/fanout-inspector/inspector/recorder"

// ShareAxis makes g show the time range of with, zooming and panning
// together, until release is called.
func (g *Gantt) ShareAxis(with *Gantt) (release func()) { return g.useAxis(with.axis) }

// ShareAxis makes the chart show the time range of g, until release is
// called.
func (c *ConcurrencyChart) ShareAxis(g *Gantt) (release func()) { return c.useAxis(g.axis) }

// Deselect clears the selection without calling OnSelect: for a view that
// moved the selection to another Gantt.
func (g *Gantt) Deselect() {
	if g.selected != 0 {
		g.selected = 0
		g.changed()
	}
}

// HiddenKinds returns the kinds whose rows are hidden, in legend order.
func (g *Gantt) HiddenKinds() []recorder.Kind {
	var ks []recorder.Kind
	for _, k := range LegendKinds {
		if g.hidden[k] {
			ks = append(ks, k)
		}
	}
	return ks
}

// SetSteps shows the concurrency steps of snap, recorder.Steps(snap),
// computed off the main goroutine. While requests are open, the lines stop
// at snap.Now at the level then in force.
func (c *ConcurrencyChart) SetSteps(snap *recorder.Snapshot, steps []recorder.Step) {
	c.snap = snap
	c.setSteps(snap, steps)
	c.redraw()
}

// Snapshot returns the snapshot shown, or nil.
func (c *ConcurrencyChart) Snapshot() *recorder.Snapshot { return c.snap }
