package recorder

import "testing"

// TestPlainLine checks that text a server wrote is shown on one line
// with nothing a terminal would act on: line breaks and tabs as spaces,
// the C0 and C1 controls that start escape sequences, and DEL, as
// U+FFFD; printable text, accents and emoji as they are.
func TestPlainLine(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "demo starting on stdio", "demo starting on stdio"},
		{"colour", "\x1b[31merror\x1b[0m: bad", "\uFFFD[31merror\uFFFD[0m: bad"},
		{"cursor and title", "a\x1b[2Jb\x1b]0;owned\x07c", "a\uFFFD[2Jb\uFFFD]0;owned\uFFFDc"},
		{"C1 CSI and DEL", "x\u009b31my\x7f", "x\uFFFD31my\uFFFD"},
		{"line breaks and tabs", "  one\r\ntwo\nthree\rfour\tfive \n", "one two three four five"},
		{"backspace over text", "safe\b\b\b\bevil", "safe\uFFFD\uFFFD\uFFFD\uFFFDevil"},
		{"unicode", "café ✓ 日本", "café ✓ 日本"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PlainLine(c.in); got != c.want {
				t.Errorf("PlainLine(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestTranscriptLineNeutralised checks that a stderr line and a
// notification whose method and text hold escape sequences are printed
// by Message.Line without them.
func TestTranscriptLineNeutralised(t *testing.T) {
	stderr := Message{Type: MessageStderr, Event: &Event{Kind: EventStderr, Text: "\x1b[1mboot\x1b[0m"}}
	if got, want := stderr.Line(), "  0.000s · stderr  \uFFFD[1mboot\uFFFD[0m"; got != want {
		t.Errorf("stderr line %q, want %q", got, want)
	}
	note := Message{Type: MessageNotification, Direction: Incoming,
		Event: &Event{Kind: EventOther, Method: "notifications/\x1b[2Jx", Text: "hi\x1b]0;t\x07"}}
	if got, want := note.Line(), "  0.000s ← notifications/\uFFFD[2Jx  hi\uFFFD]0;t\uFFFD"; got != want {
		t.Errorf("notification line %q, want %q", got, want)
	}
}
