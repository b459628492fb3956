package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/zstd"
)

const (
	// maxDecoded bounds one decompressed file. Offsets and lengths are kept
	// in 32 bits (see interval), so a larger blob stream could not be
	// indexed; the two real archives decompress to 31 MB and 72 MB.
	maxDecoded = math.MaxUint32

	// maxWindow bounds the zstd window the decoder accepts. The archives are
	// written with the standard 8 MiB window (no --long); anything far larger
	// is a damaged or foreign header, rejected before it costs memory.
	maxWindow = 128 << 20

	// maxPreallocRatio caps how far the frame header's content size is
	// trusted for preallocation: a header claiming more than this many times
	// the compressed size gets a smaller buffer that grows as real bytes
	// arrive, so a lying header cannot make Open allocate gigabytes. The real
	// archives compress about 20-26x.
	maxPreallocRatio = 256
)

// readZstd reads and fully decompresses the zstd file at path.
func readZstd(path string) ([]byte, error) {
	comp, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decompress(comp)
}

// decompress decodes a zstd stream (one frame in practice) into a single
// buffer sized from the frame header when the header is plausible.
func decompress(comp []byte) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(comp); err != nil {
		return nil, corruptf("not a zstd stream: %w", err)
	}
	prealloc := 64 << 10
	if h.HasFCS {
		if h.FrameContentSize > maxDecoded {
			return nil, corruptf("frame content size %d exceeds the %d byte limit", h.FrameContentSize, uint64(maxDecoded))
		}
		prealloc = int(min(h.FrameContentSize, uint64(len(comp))*maxPreallocRatio))
	}
	dec, err := zstd.NewReader(bytes.NewReader(comp), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, fmt.Errorf("zstd reader: %w", err)
	}
	defer dec.Close()

	// One spare byte so that a buffer sized exactly from the header sees
	// io.EOF without growing (and copying) at the very end.
	buf := make([]byte, 0, prealloc+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := dec.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if uint64(len(buf)) > maxDecoded {
			return nil, corruptf("decompressed size exceeds the %d byte limit", uint64(maxDecoded))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, corruptf("zstd: %w", err)
		}
	}
	if h.HasFCS && !h.Skippable && uint64(len(buf)) < h.FrameContentSize {
		return nil, corruptf("zstd: decompressed %d bytes, frame header says %d", len(buf), h.FrameContentSize)
	}
	return buf, nil
}
