package app

import "github.com/fanout-inspector/inspector/ui/internal/timeline"

// The details pane and the stats bar write times and names as the
// timeline does.
var (
	formatDuration = timeline.FormatDuration
	formatOffset   = timeline.FormatOffset
	truncate       = timeline.Truncate
	spanLabel      = timeline.SpanLabel
)
