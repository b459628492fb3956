// Package shareddata locates the evaluation data shared beside the checkout
// (archives, query logs, the ads CTR table) for tests and benchmarks.
//
// The data lives in a directory named shared/data next to the project's
// checkout, never inside it. Tests call SharedData(t); a missing directory
// fails the test with a message saying where it was looked for, because a
// test that silently skips is a test that never ran.
//
//	dir := shareddata.SharedData(t)
//	arch := filepath.Join(dir, "archives", "tldr-en")
package shareddata
