// Package assets holds the resources bundled into Fanout Inspector's
// binary: the application icon, as a [fyne.Resource] ready for
// [fyne.App.SetIcon] and [fyne.Window.SetIcon].
//
// icon.png is drawn by icon_gen.go; run `go generate ./assets` to redraw it.
package assets

//go:generate go run icon_gen.go

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

// Icon is the application icon, a 512×512 PNG: a tool call with five
// requests fanning out of it.
var Icon fyne.Resource = fyne.NewStaticResource("icon.png", iconPNG)
