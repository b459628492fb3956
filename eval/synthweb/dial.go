package synthweb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// DialContext returns a dial function for http.Transport that connects
// every *.synth.test address to serverAddr (where the Web is served) and
// refuses everything else, so a crawler can use the web's own URLs
// (http://site3.synth.test/…) with no DNS and without ever reaching a real
// or private address.
func DialContext(serverAddr string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		if !strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), hostSuffix) {
			return nil, fmt.Errorf("synthweb: dial %s: %w", addr, ErrNotSynthetic)
		}
		return d.DialContext(ctx, network, serverAddr)
	}
}

// ErrNotSynthetic is returned by DialContext's dialer for hosts outside
// .synth.test.
var ErrNotSynthetic = errors.New("synthweb: not a synthetic host")
