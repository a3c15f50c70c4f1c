//go:build !nogui

package main

import "github.com/go-gl/glfw/v3.3/glfw"

// askNoDepthBuffer asks GLFW for a window with neither a depth nor a
// stencil buffer. Fyne draws in two dimensions with depth testing off, yet
// clears the depth buffer with every frame; GLFW's default asks for 24
// depth and 8 stencil bits, and a software renderer (Mesa's llvmpipe, as
// under Xvfb or on a machine without a GPU) clears the depth of such a
// buffer pixel by pixel, keeping the stencil's bits: about a sixth of
// its time in a frame of a 1,000-request fan-out at 1400×900, for a buffer
// nothing reads. A hint is a preference, not a demand, so a platform that
// has no such configuration gives its nearest.
//
// Call it on the main goroutine after Fyne made the window (its driver has
// initialised GLFW by then) and before the window is shown (GLFW creates
// it then, with the hints set at that moment). With a driver other than
// Fyne's GLFW one, GLFW is not initialised and the hints are left alone.
func askNoDepthBuffer() {
	defer func() { _ = recover() }() // GLFW not initialised: go-gl panics
	glfw.WindowHint(glfw.DepthBits, 0)
	glfw.WindowHint(glfw.StencilBits, 0)
}
