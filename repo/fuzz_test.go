package repo

import (
	"testing"
	"time"
)

// FuzzDecodeNeverPanics feeds arbitrary bytes to every value decoder: a
// corrupt value must give an error, never a panic.
func FuzzDecodeNeverPanics(f *testing.F) {
	p := Page{URL: "http://a.test/x", Title: "t", Signature: []byte{1, 2}, Version: t0}
	f.Add(p.encode())
	r := FetchRecord{At: t0, Outcome: OutcomeOK, Difference: 0.5}
	f.Add(r.encode())
	h := HostState{Host: "a.test", RobotsBody: []byte("User-agent: *")}
	f.Add(h.encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		decodePage(b)
		decodeFetchRecord(b)
		decodeHost(b)
		decodeQueueEntry(b)
		decodeChange(b)
		decodeDeltaQ(t0, b)
		decodeDiscoveryYield(t0, b)
	})
}

// FuzzPageRoundTrip checks that every page record decodes to what was
// encoded.
func FuzzPageRoundTrip(f *testing.F) {
	f.Add("http://a.test/", "title", int64(0), 3, []byte("sig"))
	f.Fuzz(func(t *testing.T, url, title string, nanos int64, fetches int, sig []byte) {
		if fetches < 0 {
			fetches = -fetches
		}
		want := Page{URL: url, Title: title, LastFetch: time.Unix(0, nanos).UTC(), Fetches: fetches, Signature: sig}
		if nanos == 0 {
			want.LastFetch = time.Time{}
		}
		got, err := decodePage(want.encode())
		if err != nil {
			t.Fatal(err)
		}
		if got.URL != want.URL || got.Title != want.Title || !got.LastFetch.Equal(want.LastFetch) ||
			got.Fetches != want.Fetches || string(got.Signature) != string(want.Signature) {
			t.Fatalf("round trip: got %+v, want %+v", got, want)
		}
	})
}

// FuzzTimeKeysOrderLikeTimes checks that the 8-byte time encoding used in
// keys sorts as the times do, on both sides of 1970.
func FuzzTimeKeysOrderLikeTimes(f *testing.F) {
	f.Add(int64(-5), int64(7))
	f.Fuzz(func(t *testing.T, a, b int64) {
		if a == 0 || b == 0 {
			return // 0 ns is the zero time's encoding
		}
		ka := string(appendTime(nil, time.Unix(0, a)))
		kb := string(appendTime(nil, time.Unix(0, b)))
		if (a < b) != (ka < kb) {
			t.Fatalf("order of %d, %d not kept by keys", a, b)
		}
		if got := decodeTime([]byte(ka)); got.UnixNano() != a {
			t.Fatalf("decodeTime(appendTime(%d)) = %d", a, got.UnixNano())
		}
	})
}
