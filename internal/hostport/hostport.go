// Package hostport checks the host:port addresses that settings and flags
// give for listening or dialing.
package hostport

import (
	"errors"
	"net"
	"strconv"
)

// Rule is what an address must be, for error messages.
const Rule = "host:port"

// Split splits addr into its host and port, refusing an address that is
// not host:port or whose port is not a number in [0, 65535]. Port 0
// asks the system for a free port when listening.
func Split(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			return "", 0, errors.New(ae.Err) // the address is named by the caller
		}
		return "", 0, err
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, errors.New("the port " + strconv.Quote(p) + " is not a number from 0 to 65535")
	}
	return host, port, nil
}
