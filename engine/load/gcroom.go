package load

import (
	"runtime/metrics"
	"sync"
	"time"
)

// gcRoomBytes is the heap every run holds in reserve, a load or one
// call, so that the garbage collector runs less often: it starts a cycle
// when the heap has grown by as much as was live after the last one, and
// at least 4 MB. The Go MCP SDK allocates a 32 KB buffer for every
// message it decodes (about 400 KB per echo call, both ends counted, with
// the in-process demo server), so with a small live heap a run of 1,000
// calls/s collected some 180 times a second: each cycle's marking took
// CPU from the callers and delayed the calls it caught, by milliseconds
// at the 99th percentile. A reserve of 32 MB makes that about 12 a
// second. One call's fan-out is such a burst too: a single call to the
// demo's fanout tool with 2,000 zero-latency sampling requests took
// 390–416 ms without the reserve and 251–273 ms with it
// (BenchmarkEngineOverhead in engine/interop shows the same in requests a
// second). The reserve holds no pointers (nothing to mark) and is never
// written: made from memory fresh from the operating system, as in a
// process's first run, it takes none; made from memory the heap freed
// earlier (a later run of the same process), the runtime zeroes it, and
// it takes 32 MB for the run. Once the recording alone keeps that much
// live, the reserve is let go, as it no longer changes much.
const gcRoomBytes = 32 << 20

// gcRoom is a run's reserve (see [gcRoomBytes]), shared by the runs
// going on at once: the first takes it, the last lets it go.
var gcRoom struct {
	mu      sync.Mutex
	runs    int
	reserve []byte
	stop    chan struct{}
}

// holdGCRoom takes the reserve for a run and returns the function that
// gives it back.
func holdGCRoom() (release func()) {
	gcRoom.mu.Lock()
	defer gcRoom.mu.Unlock()
	gcRoom.runs++
	if gcRoom.runs == 1 {
		gcRoom.reserve = make([]byte, gcRoomBytes)
		gcRoom.stop = make(chan struct{})
		go watchLiveHeap(gcRoom.stop)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			gcRoom.mu.Lock()
			defer gcRoom.mu.Unlock()
			gcRoom.runs--
			if gcRoom.runs == 0 {
				gcRoom.reserve = nil
				close(gcRoom.stop)
			}
		})
	}
}

// watchLiveHeap lets the reserve go, once a second, when the live heap
// beside it has grown past its size, until stop is closed.
func watchLiveHeap(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		gcRoom.mu.Lock()
		if gcRoom.reserve != nil && sample[0].Value.Uint64() >= 2*gcRoomBytes {
			gcRoom.reserve = nil
		}
		gcRoom.mu.Unlock()
	}
}

// gcReserved reports whether a run's reserve is held.
func gcReserved() bool {
	gcRoom.mu.Lock()
	defer gcRoom.mu.Unlock()
	return gcRoom.reserve != nil
}
