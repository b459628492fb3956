// Package plural writes counts of things as English does: "1 week",
// "3 weeks". The things counted in deltaq's messages all take an "s".
package plural

import "strconv"

// Count is n things, in the plural but for one.
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
