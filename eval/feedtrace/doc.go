// Package feedtrace reads the real feed posting trace in datasets/feeds:
// the posting times of 77 public repositories' commit Atom feeds over 2025
// (commit-feeds.tsv.zst, one line per posting: feed, unix time, UTC offset)
// and their metadata (feeds.tsv: Atom URL, counts). The feed evaluation and
// the feed replay server both read it through Load.
//
// State: the whole trace in memory, about 48,000 times (0.4 MB).
//
//	tr, err := feedtrace.Load(ctx, dir)
//	for _, f := range tr.Feeds { use(f.Name, f.AtomURL, f.Postings) }
package feedtrace
