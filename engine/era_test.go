package engine

import (
	"strings"
	"testing"
)

// TestProtocolEra: the era and protocol of a target are read together,
// one set of words for every face; a contradiction says what to choose.
func TestProtocolEra(t *testing.T) {
	tests := []struct {
		era       Era
		protocol  string
		wantEra   Era
		wantPin   string
		wantError string
	}{
		{"", "", EraLegacy, "", ""},
		{"", "latest", EraAuto, "", ""},
		{"", "2026-07-28", EraModern, "2026-07-28", ""},
		{"", "2025-06-18", EraLegacy, "2025-06-18", ""},
		{EraLegacy, "", EraLegacy, "", ""},
		{EraLegacy, "2024-11-05", EraLegacy, "2024-11-05", ""},
		{EraAuto, "", EraAuto, "", ""},
		{EraAuto, "latest", EraAuto, "", ""},
		{EraAuto, "2026-07-28", EraAuto, "2026-07-28", ""},
		{EraModern, "", EraModern, "", ""},
		{EraModern, "latest", EraModern, "", ""},
		{EraLegacy, "2026-07-28", "", "", "era legacy with protocol 2026-07-28: 2026-07-28 is a modern-era version, which legacy (initialize) cannot offer; choose era modern (or auto)"},
		{EraLegacy, "latest", "", "", "era legacy with protocol latest: latest is 2026-07-28, the modern era; choose era auto or modern"},
		{EraModern, "2025-11-25", "", "", "era modern with protocol 2025-11-25: 2025-11-25 is a legacy-era version (initialize); choose era legacy for it"},
		{EraAuto, "2025-06-18", "", "", "era auto with protocol 2025-06-18: auto tries 2026-07-28 and falls back to 2025-11-25, and offers no other version; choose era legacy"},
		{"newest", "", "", "", `era "newest": want legacy (initialize, the default), auto (server/discover, else initialize) or modern (2026-07-28 only)`},
		{"", "1999-01-01", "", "", `protocol "1999-01-01" is not one this inspector speaks; choose latest or one of 2026-07-28, 2025-11-25`},
	}
	for _, tt := range tests {
		t.Run(string(tt.era)+"+"+tt.protocol, func(t *testing.T) {
			era, pin, err := Target{Era: tt.era, Protocol: tt.protocol}.ProtocolEra()
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantError)
				}
				return
			}
			if err != nil || era != tt.wantEra || pin != tt.wantPin {
				t.Errorf("got %q %q (%v), want %q %q", era, pin, err, tt.wantEra, tt.wantPin)
			}
		})
	}
}

// TestParseEra reads the three words, any case, and nothing else.
func TestParseEra(t *testing.T) {
	for in, want := range map[string]Era{"": EraLegacy, "legacy": EraLegacy, " Auto ": EraAuto, "MODERN": EraModern} {
		if got, err := ParseEra(in); err != nil || got != want {
			t.Errorf("ParseEra(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseEra("2026"); err == nil || !strings.Contains(err.Error(), "want legacy") {
		t.Errorf("ParseEra(2026): %v, want an error listing the eras", err)
	}
}

// TestEraBadge: what the badge says for each era asked and got.
func TestEraBadge(t *testing.T) {
	tests := []struct {
		asked    Era
		protocol string
		want     string
	}{
		{EraLegacy, "2025-11-25", "legacy · 2025-11-25"},
		{EraModern, "2026-07-28", "modern · 2026-07-28"},
		{EraAuto, "2026-07-28", "auto → modern · 2026-07-28"},
		{EraAuto, "2025-11-25", "auto → legacy · 2025-11-25"},
		{"", "2025-06-18", "legacy · 2025-06-18"},
		{EraAuto, "", ""},
	}
	for _, tt := range tests {
		if got := EraBadge(tt.asked, tt.protocol); got != tt.want {
			t.Errorf("EraBadge(%q, %q) = %q, want %q", tt.asked, tt.protocol, got, tt.want)
		}
	}
}

// TestConnectEras connects to the demo server, which speaks both eras,
// in process and as a stdio subprocess: legacy opens with initialize,
// auto and modern with server/discover and speak 2026-07-28; the
// recording says which era was asked for and what was negotiated.
func TestConnectEras(t *testing.T) {
	targets := map[string]Target{
		"in-process": {},
		"stdio":      stdioTarget("demo"),
	}
	tests := []struct {
		era       Era
		protocol  string
		badge     string
		handshake string // the request that opened the session
	}{
		{EraLegacy, "2025-11-25", "legacy · 2025-11-25", "initialize"},
		{EraAuto, "2026-07-28", "auto → modern · 2026-07-28", "server/discover"},
		{EraModern, "2026-07-28", "modern · 2026-07-28", "server/discover"},
	}
	for name, target := range targets {
		for _, tt := range tests {
			t.Run(name+"/"+string(tt.era), func(t *testing.T) {
				target.Era = tt.era
				s := connectTarget(t, target, DefaultAnswerPolicy())
				info := s.Info()
				if info.Protocol != tt.protocol || info.EraBadge() != tt.badge {
					t.Errorf("negotiated %q, badge %q; want %q, %q", info.Protocol, info.EraBadge(), tt.protocol, tt.badge)
				}
				snap := s.Recording().Snapshot()
				if snap.Meta.Era != string(tt.era) || snap.Meta.Protocol != tt.protocol {
					t.Errorf("recording's meta: era %q protocol %q, want %q %q", snap.Meta.Era, snap.Meta.Protocol, tt.era, tt.protocol)
				}
				other := map[string]string{"initialize": "server/discover", "server/discover": "initialize"}[tt.handshake]
				if len(spansOf(snap, tt.handshake)) != 1 || len(spansOf(snap, other)) != 0 {
					t.Errorf("recorded %d %s and %d %s; want the session opened by %s alone",
						len(spansOf(snap, tt.handshake)), tt.handshake, len(spansOf(snap, other)), other, tt.handshake)
				}
				found := false
				for _, e := range snap.Events {
					found = found || strings.Contains(e.Text, "("+tt.badge+")")
				}
				if !found {
					t.Errorf("no connection event names %q", tt.badge)
				}
			})
		}
	}
}
