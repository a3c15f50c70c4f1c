package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
)

// endpointFlags defines on fs the flags of sampling mode "endpoint"
// (--sampling-endpoint, --sampling-model, --sampling-key-env,
// --sampling-timeout). Call the returned function after fs.Parse: it
// puts them into the answer policy, or says which flag is wrong.
func endpointFlags(fs *flag.FlagSet) func(policy *engine.AnswerPolicy) error {
	var (
		endpoint = fs.String("sampling-endpoint", "", "answer sampling requests with a model behind an OpenAI-compatible chat-completions API at `URL` (its base, as in http://127.0.0.1:11434/v1; /chat/completions is appended unless given)")
		model    = fs.String("sampling-model", "", "the `NAME` of the model: asked of --sampling-endpoint (default: the request's first modelPreferences hint), or put in the answers of --sampling-reply (default "+engine.DefaultAnswerPolicy().SamplingModel+")")
		keyEnv   = fs.String("sampling-key-env", engine.DefaultEndpointKeyEnv, "the environment `VARIABLE` holding --sampling-endpoint's API key, sent as a bearer token and never recorded ('' or an empty variable: no key)")
		timeout  = fs.Duration("sampling-timeout", engine.DefaultEndpointTimeout, "give up on a call to --sampling-endpoint after `D`, answering the request with an error")
	)
	return func(policy *engine.AnswerPolicy) error {
		url := strings.TrimSpace(*endpoint)
		if url == "" {
			if flagWasSet(fs, "sampling-endpoint") {
				return fmt.Errorf("--sampling-endpoint is empty: give the API's base URL, as in http://127.0.0.1:11434/v1")
			}
			for _, name := range []string{"sampling-key-env", "sampling-timeout"} {
				if flagWasSet(fs, name) {
					return fmt.Errorf("--%s is for --sampling-endpoint, which is not given", name)
				}
			}
			if m := strings.TrimSpace(*model); m != "" {
				policy.SamplingModel = m
			}
			return nil
		}
		if err := checkURL(url); err != nil {
			return fmt.Errorf("--sampling-endpoint: %w", err)
		}
		if *timeout <= 0 {
			return fmt.Errorf("--sampling-timeout %v: want a positive duration, as in 60s", *timeout)
		}
		if flagWasSet(fs, "sampling-reply") {
			return fmt.Errorf("--sampling-reply and --sampling-endpoint: choose one way to answer sampling")
		}
		policy.SamplingEndpoint = engine.SamplingEndpoint{URL: url, Model: strings.TrimSpace(*model), KeyEnv: strings.TrimSpace(*keyEnv), Timeout: *timeout}
		if policy.SamplingEndpoint.Model != "" {
			policy.SamplingModel = policy.SamplingEndpoint.Model
		}
		if err := policy.Validate(); err != nil {
			return fmt.Errorf("--sampling-endpoint: %w", err)
		}
		return nil
	}
}
