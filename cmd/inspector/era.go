package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// addEra sets t's era from --era (a server of a client config keeps its
// own "era" unless --era is given) and checks it against the protocol,
// with the engine's words ([engine.Target.ProtocolEra]).
func (f *connectionFlags) addEra(t *engine.Target) error {
	if flagWasSet(f.fs, "era") {
		if strings.TrimSpace(*f.era) == "" {
			return errors.New("--era is empty: leave it out for legacy, or give legacy, auto or modern")
		}
		era, err := engine.ParseEra(*f.era)
		if err != nil {
			return fmt.Errorf("--%w", err)
		}
		t.Era = era
	}
	if _, _, err := t.ProtocolEra(); err != nil {
		return fmt.Errorf("--era/--protocol: %w", err)
	}
	return nil
}

// eraWords is the era a recording's session spoke, as the summary says
// it after the protocol: "legacy", "modern", or for auto which one it
// fell to, "auto → legacy".
func eraWords(meta recorder.Meta) string {
	got := string(engine.EraOf(meta.Protocol))
	if engine.Era(meta.Era) == engine.EraAuto {
		return string(engine.EraAuto) + " → " + got
	}
	return got
}

// withEra adds to the JSON object v the protocol the session negotiated
// ("protocol"), its era ("era": legacy or modern) and the era asked for
// ("era_asked": legacy, auto or modern), as in
//
//	"protocol": "2025-11-25", "era": "legacy", "era_asked": "auto"
//
// v is returned as it is when it is not an object or nothing was
// negotiated.
func withEra(v any, meta recorder.Meta) any {
	if meta.Protocol == "" {
		return v
	}
	head, err := json.Marshal(v)
	if err != nil || len(head) < 2 || head[len(head)-1] != '}' {
		return v
	}
	tail, err := json.Marshal(struct {
		Protocol string `json:"protocol"`
		Era      string `json:"era"`
		EraAsked string `json:"era_asked,omitempty"`
	}{meta.Protocol, string(engine.EraOf(meta.Protocol)), meta.Era})
	if err != nil {
		return v
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	if len(head) > 2 {
		b.WriteByte(',')
	}
	b.Write(tail[1:]) // its fields and closing brace
	return json.RawMessage(b.Bytes())
}
