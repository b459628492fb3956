package frontier

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// A period's usage persisted before the monitoring class existed (three
// counts) still loads, with nothing counted for monitoring.
func TestUsageOfFewerClassesDecodes(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	old := binary.AppendVarint(nil, start.UnixNano())
	for _, n := range []uint64{7, 3, 2} {
		old = binary.AppendUvarint(old, n)
	}
	u, err := decodeUsage(old)
	if err != nil {
		t.Fatal(err)
	}
	want := [repo.NumClasses]int{7, 3, 2, 0}
	if !u.start.Equal(start) || u.byClass != want {
		t.Errorf("decoded %v %v, want %v %v", u.start, u.byClass, start, want)
	}
}
