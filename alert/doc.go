// Package alert runs standing search queries (search alerts): it owns the
// alerts, an inverted index of their terms, and the matching of every new
// or changed page of each index batch against them.
//
// A query is written as for search (index.ParseQuery: terms, "phrases",
// -exclusions, site:) and analyzed with the index's own analyzer, and an
// alert matches a page that a search requiring every word would find:
// every term's words present, each phrase's words at their relative
// positions, no excluded term or phrase, the host one of the site:
// hosts or a subdomain of one (index.SitePattern). Search itself ranks best matches and may also show pages that
// hold only some of the words (index/match.go); an alert firing on those
// would fire on most pages. A query of stop words only, which search
// looks up in titles, is refused.
//
// Cost. Each alert is filed under one anchor, one of its required words:
// the one found on the fewest observed pages (the matcher counts, for
// every alert word, the pages that held it, and files all alerts again
// after 500, 1,000, 2,000, … pages), then the one with the fewest alerts
// filed under it, so the lists stay even. A page's candidates are the
// alerts filed under the words it contains, found by one map lookup per
// distinct word of the page, and only they are verified. The work per page grows with the page's
// words and the candidates it really has, not with the number of alerts;
// BenchmarkAlertOverhead measures the cost per indexed page with 100,000
// standing queries against none.
//
// Matching runs inside the index batch (index.BatchObserver): the
// notification of each match is written by notify.Outbox.Enqueue into the
// batch's repository writes, which commit with the index watermark, so a
// page that crashes out of a batch is matched again when the batch is
// redone, under the same notification ID (alert, URL, fetch time), and a
// committed match is never matched again.
//
// State: repository bucket "alert" (repo/FORMAT.md): a/ID → Alert (JSON),
// seq/ → the last number given out, n/H → the numbers of the alerts that
// have notified the page of URL hash H (a removed alert's number leaves
// when the value is next written). In memory (packed.go), at most
// alert.max_alerts alerts, packed so that the garbage collector has
// almost no pointer to scan: every alert word interned once as a uint32
// id with its page count and its anchored alerts (words of removed alerts
// stay until restart), each alert a slot of integers over shared clause
// and word slices, and its record as JSON in one byte arena.
//
// The Google Alerts comparison: a standing query notified when new
// pages match; here also when a changed page matches, with its snippet
// and which of the two it is (Notification.Change: "new page" or
// "changed page"). An alert notifies a page once, at its first match, as
// Google Alerts sends a result once; Alert.EveryChange notifies each of
// its matching changes. Either kind matches only copies fetched at or
// after the alert's creation (Alert.Created): a standing query tells what
// is new to it, and an index catching up, or rebuilt from the change feed,
// shows copies fetched before it. Which alerts have notified a page is one
// repository value per page (n/H), read once per batch page that matches
// any alert and written when it gains an alert, so the check costs a
// read per matching page, not per match.
//
//	m, err := alert.New(db, cfg.Alert, ix.Analyzer(), cfg.Index.Limits(), outbox, alert.Options{})
//	ix, err := index.Open(dir, cfg.Index, db, index.Options{Observer: m})
//	a, err := m.Add(ctx, alert.Alert{User: "ada", Query: `"plain language" site:digital.gov`, Notify: targets})
package alert
