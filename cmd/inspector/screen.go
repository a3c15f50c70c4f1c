//go:build !nogui

package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// screenRoom returns the room the primary monitor gives a window (its
// work area: the screen less any panels and docks) in Fyne's units, or the
// zero size when it cannot be known. Fyne has no API for the screen's
// size; its driver is GLFW, which it has initialised by the time it made
// the first window. Call it on the main goroutine after that.
func screenRoom(a fyne.App) (room fyne.Size) {
	defer func() {
		if recover() != nil { // GLFW not up (a driver other than Fyne's GLFW one)
			room = fyne.Size{}
		}
	}()
	mon := glfw.GetPrimaryMonitor()
	if mon == nil {
		return fyne.Size{}
	}
	_, _, w, h := mon.GetWorkarea()
	if w <= 0 || h <= 0 {
		if mode := mon.GetVideoMode(); mode != nil {
			w, h = mode.Width, mode.Height
		}
	}
	if w <= 0 || h <= 0 {
		return fyne.Size{}
	}
	widthMM, _ := mon.GetPhysicalSize()
	scale := windowScale(a, widthMM, w)
	return fyne.NewSize(float32(w)/scale, float32(h)/scale)
}

// windowScale is how many pixels a unit of Fyne's takes on a monitor
// widthPx pixels and widthMM millimetres wide, as Fyne's GLFW driver
// works it out: the monitor's DPI over 120 (at least 1), times the
// user's scale (FYNE_SCALE, or the app's settings).
func windowScale(a fyne.App, widthMM, widthPx int) float32 {
	detected := 1.0
	if widthMM > 0 {
		if dpi := float64(widthPx) / (float64(widthMM) / 25.4); dpi >= 10 && dpi <= 1000 {
			detected = max(dpi/120, 1)
		}
	}
	user := 1.0
	if env := os.Getenv("FYNE_SCALE"); env != "" && env != "auto" {
		if s, err := strconv.ParseFloat(env, 32); err == nil && s > 0 {
			user = s
		}
	} else if s := a.Settings().Scale(); s > 0 && env != "auto" {
		user = float64(s)
	}
	return float32(max(math.Round(detected*user*10)/10, 0.1))
}

// parseWindowSize reads --window-size: WIDTHxHEIGHT in Fyne's units
// (pixels at scale 1), e.g. 1024x700; "" is the zero size (the default).
func parseWindowSize(s string) (fyne.Size, error) {
	if s == "" {
		return fyne.Size{}, nil
	}
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if !ok || errW != nil || errH != nil || w < 200 || h < 200 {
		return fyne.Size{}, fmt.Errorf("--window-size %q: want WIDTHxHEIGHT, each 200 or more, as in 1024x700", s)
	}
	return fyne.NewSize(float32(w), float32(h)), nil
}
