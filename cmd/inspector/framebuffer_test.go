//go:build !nogui

package main

import "testing"

// A face other than the window's (a test, a driver other than Fyne's GLFW
// one) has no GLFW: asking for the lean framebuffer then does nothing
// rather than panic in go-gl.
func TestAskNoDepthBufferWithoutGLFW(t *testing.T) {
	askNoDepthBuffer()
}
