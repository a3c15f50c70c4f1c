package recorder

import "fmt"

// The names of the one-byte types of a span, as JSON and text carry them;
// index 0 is the zero value.
var (
	directionNames = [...]string{"", "incoming", "outgoing"}
	kindNames      = [...]string{"", "elicitation", "other", "ping", "roots", "round", "sampling", "tool"}
	statusNames    = [...]string{"", "aborted", "cancelled", "error", "ok", "timeout"}
	outcomeNames   = [...]string{"", "error", "input_required", "result"}
)

// nameOf is names[v], or a description of a value no constant has.
func nameOf[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%T(%d)", v, uint8(v))
}

// valueOf is the value named name, or false.
func valueOf[T ~uint8](names []string, name string) (T, bool) {
	for i, n := range names {
		if n == name {
			return T(i), true
		}
	}
	return 0, false
}

// String returns the direction's name: "incoming", "outgoing", or "" for
// the zero value.
func (d Direction) String() string { return nameOf(directionNames[:], d) }

// MarshalText returns the direction's name.
func (d Direction) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a direction's name; any other text is an error.
func (d *Direction) UnmarshalText(b []byte) error {
	v, ok := valueOf[Direction](directionNames[:], string(b))
	if !ok {
		return fmt.Errorf("direction %q, expected %q or %q", b, Incoming, Outgoing)
	}
	*d = v
	return nil
}

// String returns the kind's name ("sampling", "tool" …), or "" for the
// zero value.
func (k Kind) String() string { return nameOf(kindNames[:], k) }

// MarshalText returns the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name. A name this version does not know
// (written by a newer one) reads as [KindOther], as a method it does not
// know would.
func (k *Kind) UnmarshalText(b []byte) error {
	v, ok := valueOf[Kind](kindNames[:], string(b))
	if !ok {
		v = KindOther
	}
	*k = v
	return nil
}

// ParseKind returns the kind named name, or false.
func ParseKind(name string) (Kind, bool) { return valueOf[Kind](kindNames[:], name) }

// String returns the status's name ("ok", "error" …), or "" for
// [StatusOpen].
func (s Status) String() string { return nameOf(statusNames[:], s) }

// MarshalText returns the status's name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status's name; any other text is an error.
func (s *Status) UnmarshalText(b []byte) error {
	v, ok := valueOf[Status](statusNames[:], string(b))
	if !ok {
		return fmt.Errorf("status %q, expected one of %q", b, statusNames[1:])
	}
	*s = v
	return nil
}

// ParseStatus returns the status named name, or false.
func ParseStatus(name string) (Status, bool) { return valueOf[Status](statusNames[:], name) }

// String returns the outcome's name ("input_required", "result",
// "error"), or "" for the zero value.
func (o RoundOutcome) String() string { return nameOf(outcomeNames[:], o) }

// MarshalText returns the outcome's name.
func (o RoundOutcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's name; any other text is an error.
func (o *RoundOutcome) UnmarshalText(b []byte) error {
	v, ok := valueOf[RoundOutcome](outcomeNames[:], string(b))
	if !ok {
		return fmt.Errorf("round outcome %q, expected one of %q", b, outcomeNames[1:])
	}
	*o = v
	return nil
}
