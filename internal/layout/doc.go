// Package layout holds the test that keeps imports running with the data
// flow (layout_test.go): a package imports only packages of a lower layer,
// or of its own top-level folder (a sub-folder with a row of its own is a
// folder of its own). The layers, bottom to top:
//
//	0  internal/...      small shared plumbing
//	1  repo              the Pebble repository, the ground floor
//	2  frontier, index, discovery, ads, feeds, diff
//	                     stand on the repository (or on nothing)
//	3  crawler (→ frontier), ranking (→ index), notify (→ diff)
//	4  monitor, cluster, relation, alert, watch
//	                     built on the crawl, the index and delivery
//	5  web, eval         the HTTP front; offline evaluations;
//	   monitor/poll      feeds' and watches' demands on the frontier's
//	                     monitoring share (→ monitor, feeds, watch)
//	6  configs           mirrors every package's configuration
//	7  cmd               wiring
//
// A new top-level folder needs a row in the test's table; the test names
// any package without one and every import that runs against the flow.
package layout
