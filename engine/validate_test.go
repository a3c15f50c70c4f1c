package engine

import (
	"math"
	"strings"
	"testing"
)

// TestValidateCatchesWhatWouldFailMidRun checks that Validate refuses, before
// any request arrives, answer policies that would only fail once a request is
// served: a reply template naming a field a sampling request does not have
// (it parses, and fails only when executed), and a fail rate that is not a
// number.
func TestValidateCatchesWhatWouldFailMidRun(t *testing.T) {
	cases := []struct {
		name string
		edit func(*AnswerPolicy)
		want string
	}{
		{"unknown template field", func(policy *AnswerPolicy) { policy.SamplingReply = "hi {{.Nope}}" }, "can't evaluate field Nope"},
		{"field of a field", func(policy *AnswerPolicy) { policy.SamplingReply = "{{.Index.X}}" }, "can't evaluate field X"},
		{"undefined template", func(policy *AnswerPolicy) { policy.SamplingReply = `{{template "x"}}` }, `template "x" not defined`},
		{"fail rate NaN", func(policy *AnswerPolicy) { policy.FailRate = math.NaN() }, "fail rate NaN"},
		{"fail rate above 1", func(policy *AnswerPolicy) { policy.FailRate = 1.5 }, "between 0 and 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			tc.edit(&policy)
			err := policy.Validate()
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "replyData") {
				t.Errorf("error %q names a Go type the user never sees", err)
			}
		})
	}
	for _, ok := range []string{"reply {{.Index}}", "{{.Model}}: {{.LastUserMessage}}", "plain"} {
		policy := DefaultAnswerPolicy()
		policy.SamplingReply = ok
		if err := policy.Validate(); err != nil {
			t.Errorf("template %q refused: %v", ok, err)
		}
	}
}

// TestDispatchValidatedOnce: a dispatch policy is judged by one check,
// DispatchPolicy.Validate, whether it was parsed from text, built in the
// app or checked as part of an answer policy: each says the same words.
func TestDispatchValidatedOnce(t *testing.T) {
	for _, tc := range []struct {
		text string
		p    DispatchPolicy
		want string
	}{
		{"bounded:0", DispatchPolicy{Mode: Bounded}, `dispatch "bounded:0": bounded needs a whole number of slots >= 1`},
		{"sometimes", DispatchPolicy{Mode: "sometimes"}, `dispatch "sometimes": want concurrent, serial, inline or bounded:N`},
	} {
		_, parsed := ParseDispatch(tc.text)
		policy := DefaultAnswerPolicy()
		policy.Dispatch = tc.p
		for name, err := range map[string]error{"ParseDispatch": parsed, "DispatchPolicy.Validate": tc.p.Validate(), "AnswerPolicy.Validate": policy.Validate()} {
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%s of %q: %v, want an error starting %q", name, tc.text, err, tc.want)
			}
		}
	}
	for _, ok := range []string{"concurrent", "serial", "inline", "bounded:4"} {
		p, err := ParseDispatch(ok)
		if err != nil || p.Validate() != nil || p.String() != ok {
			t.Errorf("ParseDispatch(%q) = %v, %v", ok, p, err)
		}
	}
}
