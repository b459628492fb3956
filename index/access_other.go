//go:build !unix

package index

// accessProblem reports no permission problem: only Unix systems are
// asked (access_unix.go).
func accessProblem(string) error { return nil }
