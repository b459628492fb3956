// Package feedreplay serves the real feed posting trace (package feedtrace)
// as live Atom feeds on loopback, so the real crawler can poll real posting
// processes: each feed at http://feeds.test/OWNER/REPO.atom shows its latest
// postings up to the replayed clock, with an ETag and Last-Modified, and
// answers a conditional GET for an unchanged feed with 304.
//
// The replayed clock is a func: a clock.Manual in tests and evaluations
// (the crawler shares it), or Speed, the trace's time running N times as
// fast as the wall clock, for `deltaq web feeds --speed N`.
//
// State: the trace, read-only; each response is built from a binary search
// and at most Options.Items entries.
//
//	srv := feedreplay.New(tr, feedreplay.Options{Now: clk.Now, Items: 20})
//	ts := httptest.NewServer(srv)
//	url := srv.URL(tr.Feeds[0].Name) // http://feeds.test/OWNER/REPO.atom
package feedreplay
