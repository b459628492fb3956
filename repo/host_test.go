package repo

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// Host records written in formats 1 (before RobotsUnreachableSince) and 2
// (before RobotsRetryWait) still read, with those fields zero; format 3
// reads back what was written; an unknown format is corrupt.
func TestHostFormats(t *testing.T) {
	at := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	want := HostState{Host: "a.test", RobotsStatus: 200, RobotsBody: []byte("User-agent: *\nDisallow: /x\n"),
		RobotsFetched: at, RobotsExpires: at.Add(time.Hour), BackoffUntil: at.Add(time.Minute), Backoffs: 2, Pages: 9,
		RobotsUnreachableSince: at.Add(30 * time.Minute), RobotsRetryWait: 2 * time.Hour}
	got, err := decodeHost(want.encode())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("format 3: read %+v, %v; wrote %+v", got, err, want)
	}

	e := encoder{}
	e.byte(hostFormatV1)
	e.str(want.Host)
	e.uvarint(uint64(want.RobotsStatus))
	e.bytes(want.RobotsBody)
	e.time(want.RobotsFetched)
	e.time(want.RobotsExpires)
	e.time(want.NextFetch)
	e.time(want.BackoffUntil)
	e.uvarint(uint64(want.Backoffs))
	e.uvarint(uint64(want.Pages))
	v1 := want
	v1.RobotsUnreachableSince, v1.RobotsRetryWait = time.Time{}, 0
	if got, err := decodeHost(e.b); err != nil || !reflect.DeepEqual(got, v1) {
		t.Errorf("format 1: read %+v, %v; want %+v", got, err, v1)
	}

	e.b[0] = hostFormatV2
	e.time(want.RobotsUnreachableSince)
	v2 := want
	v2.RobotsRetryWait = 0
	if got, err := decodeHost(e.b); err != nil || !reflect.DeepEqual(got, v2) {
		t.Errorf("format 2: read %+v, %v; want %+v", got, err, v2)
	}

	for _, format := range []byte{0, 4} {
		bad := append([]byte{format}, e.b[1:]...)
		if _, err := decodeHost(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("format %d: %v, want ErrCorrupt", format, err)
		}
	}
}
