package engine

import (
	"math"
	"testing"
	"time"
)

func TestParseLatency(t *testing.T) {
	tests := []struct {
		in      string
		want    LatencyModel
		wantErr bool
	}{
		{"500ms", LatencyModel{Dist: Fixed, A: ms(500)}, false},
		{"0", LatencyModel{Dist: Fixed}, false},
		{"fixed:1s", LatencyModel{Dist: Fixed, A: time.Second}, false},
		{"uniform:200ms-800ms", LatencyModel{Dist: Uniform, A: ms(200), B: ms(800)}, false},
		{"normal:500ms,100ms", LatencyModel{Dist: Normal, A: ms(500), B: ms(100)}, false},
		{"exp:250ms", LatencyModel{Dist: Exponential, A: ms(250)}, false},
		{"fast", LatencyModel{}, true},
		{"-5ms", LatencyModel{}, true},
		{"uniform:800ms-200ms", LatencyModel{}, true},
		{"uniform:200ms", LatencyModel{}, true},
		{"normal:500ms", LatencyModel{}, true},
		{"gamma:1s", LatencyModel{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLatency(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseLatency(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("ParseLatency(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if err == nil {
				back, err := ParseLatency(got.String())
				if err != nil || back != got {
					t.Errorf("round trip through %q = %+v, %v", got.String(), back, err)
				}
			}
		})
	}
}

func TestParseDispatch(t *testing.T) {
	tests := []struct {
		in      string
		want    DispatchPolicy
		wantErr bool
	}{
		{"concurrent", DispatchPolicy{Mode: Concurrent}, false},
		{"", DispatchPolicy{Mode: Concurrent}, false},
		{"serial", DispatchPolicy{Mode: Serial}, false},
		{"bounded:4", DispatchPolicy{Mode: Bounded, Limit: 4}, false},
		{"bounded:0", DispatchPolicy{}, true},
		{"bounded:x", DispatchPolicy{}, true},
		{"parallel", DispatchPolicy{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDispatch(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseDispatch(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("ParseDispatch(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

// TestLatencySeeded checks that the same seed, method and arrival index
// always give the same latency and failure, and that other seeds differ.
func TestLatencySeeded(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Uniform, A: 0, B: time.Second}
	policy.FailRate = 0.5
	policy.Seed = 7
	seq := func(policy AnswerPolicy) []draw {
		var out []draw
		for i := int64(1); i <= 50; i++ {
			out = append(out, drawFor(&policy, "sampling/createMessage", i))
		}
		return out
	}
	a, b := seq(policy), seq(policy)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d differs with the same seed: %v vs %v", i+1, a[i], b[i])
		}
	}
	otherSeed := policy
	otherSeed.Seed = 8
	c := seq(otherSeed)
	same := 0
	for i := range a {
		if a[i].latency == c[i].latency {
			same++
		}
	}
	if same > 2 {
		t.Errorf("seed 8 repeats %d of seed 7's 50 latencies", same)
	}
	// A different fail rate must not change the latencies.
	noFail := policy
	noFail.FailRate = 0
	d := seq(noFail)
	for i := range a {
		if a[i].latency != d[i].latency {
			t.Fatalf("changing the fail rate changed latency %d", i+1)
		}
	}
	// Per-method override.
	policy.MethodLatency = map[string]LatencyModel{"ping": {Dist: Fixed, A: ms(3)}}
	if got := drawFor(&policy, "ping", 1).latency; got != ms(3) {
		t.Errorf("ping latency %v, want the 3ms override", got)
	}
}

// TestLatencyMeans checks the distributions' sample means over 10,000
// draws, within 5%.
func TestLatencyMeans(t *testing.T) {
	tests := []struct {
		m    LatencyModel
		mean time.Duration
	}{
		{LatencyModel{Dist: Fixed, A: ms(500)}, ms(500)},
		{LatencyModel{Dist: Uniform, A: ms(200), B: ms(800)}, ms(500)},
		{LatencyModel{Dist: Normal, A: ms(500), B: ms(100)}, ms(500)},
		{LatencyModel{Dist: Exponential, A: ms(500)}, ms(500)},
	}
	for _, tt := range tests {
		t.Run(tt.m.String(), func(t *testing.T) {
			policy := AnswerPolicy{Latency: tt.m, Seed: 1}
			var sum float64
			const n = 10000
			for i := int64(1); i <= n; i++ {
				d := drawFor(&policy, "sampling/createMessage", i).latency
				if d < 0 {
					t.Fatalf("negative latency %v", d)
				}
				sum += float64(d)
			}
			got := sum / n
			if math.Abs(got-float64(tt.mean)) > 0.05*float64(tt.mean) {
				t.Errorf("mean %v, want %v ± 5%%", time.Duration(got), tt.mean)
			}
		})
	}
	t.Run("normal clamps at 0", func(t *testing.T) {
		policy := AnswerPolicy{Latency: LatencyModel{Dist: Normal, A: ms(10), B: ms(100)}}
		for i := int64(1); i <= 1000; i++ {
			if d := drawFor(&policy, "ping", i).latency; d < 0 {
				t.Fatalf("latency %v < 0", d)
			}
		}
	})
}
