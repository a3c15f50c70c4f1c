//go:build !nogui

package main

import (
	"testing"
	"time"
)

// blockedInReceive stands for Fyne's signal handler: it waits on a
// channel once it registered.
func blockedInReceive(registered chan<- struct{}, c <-chan struct{}) {
	close(registered)
	<-c
}

// TestWaitForGoroutineSeesTheHandlerWaiting: quitOnSignal may take the
// signals over only once Fyne's handler is waiting on its channel (else
// Fyne registers after it and both quit); waitForGoroutine finds such a
// goroutine by its function and state, and gives up after its timeout
// when there is none.
func TestWaitForGoroutineSeesTheHandlerWaiting(t *testing.T) {
	const fn = ".blockedInReceive(" // in a test binary, main is named by its import path
	if waitForGoroutine(fn, "chan receive", 50*time.Millisecond) {
		t.Fatal("found a waiting handler before one was started")
	}
	registered, c := make(chan struct{}), make(chan struct{})
	defer close(c)
	go blockedInReceive(registered, c)
	<-registered
	start := time.Now()
	if !waitForGoroutine(fn, "chan receive", 5*time.Second) {
		t.Fatal("did not find the handler waiting on its channel")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to find it", d)
	}
}
