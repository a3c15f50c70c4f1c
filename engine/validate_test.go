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
