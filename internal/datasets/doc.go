// Package datasets locates the real data the project carries in its
// repository (datasets/ at the module root: weekly archives, query logs,
// the ads CTR table, feed posting times) for tests and benchmarks.
//
// The folder is found from this package's own source location, so a test
// in any package of a fresh clone finds it with nothing beside the
// checkout. A missing file fails the test with the path it looked at: a test
// that skips silently is a test that never ran.
//
//	arch := datasets.Path(t, "archives", "tldr-en")
//	log := datasets.Path(t, "querylogs", "tldr-brew-installs.tsv")
package datasets
