package fastread

import (
	"bytes"
	"cmp"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastjson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/yamljson"
)

// SlabSize is how much of a reader's input Read reads at a time, when
// Input.Slab is 0.
const SlabSize = 4 << 20

// batchBytes is about how many bytes of items a worker takes at a time.
const batchBytes = 256 << 10

// window is the part of the input at hand: all of it for Input.Buf, a
// slab of r for Input.R, whose buffer a refill reuses.
type window struct {
	r    io.ReaderAt
	size int64
	// off is the offset in r of the end of buf.
	off int64
	buf []byte
	// mem is the buffer buf lies in when the window reads r.
	mem []byte
	// err is the first read error.
	err error
	// slab is the size of a slab, SlabSize when 0 (tests make it small).
	slab int
}

// eof reports whether buf ends the input.
func (w *window) eof() bool {
	return w.r == nil || w.off >= w.size || w.err != nil
}

// refill moves buf[keep:] to the start of the buffer and reads more of the
// input after it; it returns false at the end of the input or on a read
// error. Slices of buf taken before are no longer valid.
func (w *window) refill(keep int) bool {
	if w.eof() {
		return false
	}
	rest := len(w.buf) - keep
	n := max(cap(w.mem), cmp.Or(w.slab, SlabSize))
	for n < 2*rest {
		n *= 2 // a unit of more than half a slab
	}
	if cap(w.mem) < n {
		mem := make([]byte, n)
		copy(mem, w.buf[keep:])
		w.mem = mem
	} else {
		w.mem = w.mem[:cap(w.mem)]
		copy(w.mem, w.buf[keep:])
	}
	want := int(min(int64(n-rest), w.size-w.off))
	got, err := w.r.ReadAt(w.mem[rest:rest+want], w.off)
	if got < want {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		w.err = err
		return false
	}
	w.off += int64(got)
	w.buf = w.mem[:rest+got]
	return true
}

// fastDoc is one document of the input: read whole (objs), or a List
// whose items the batches hold.
type fastDoc[T any] struct {
	objs    []T
	batches []*batch[T]
	// version and itemKind are what items that omit their apiVersion or
	// kind take (a typed list's).
	version, itemKind string
}

// batch is items of one document for one worker: compact JSON, or YAML
// unindented, one after the other in data, each ending at its ends.
type batch[T any] struct {
	yaml bool
	data []byte
	ends []int
	out  []fastItem[T]
}

// fastItem is a decoded item, or the JSON of one that omits its
// apiVersion or kind, decoded once the document's end says its List's.
type fastItem[T any] struct {
	obj     T
	pending []byte
}

// splitter cuts the input into documents and items.
type splitter[T any] struct {
	dec Decoder[T]
	w   *window
	// pos is the next byte to read; mark the first one a refill keeps
	// (the start of the unit being read).
	pos, mark int
	docs      []*fastDoc[T]
	cur       *batch[T]
	jobs      chan *batch[T]
	// free holds the data buffers of batches done with.
	free   chan []byte
	wg     sync.WaitGroup
	failed atomic.Bool
}

// Read reads the objects of in the fast way, decoding them with dec. ok
// is false when the general path must read the input instead; err is a
// read error of in.R. Read starts up to GOMAXPROCS goroutines, each with
// its own dec.Worker, and waits for them.
func Read[T any](in Input, dec Decoder[T]) (objs []T, ok bool, err error) {
	w := &window{buf: in.Buf, r: in.R, size: in.Size, slab: in.Slab}
	if in.R != nil {
		w.buf = nil
	}
	sp := &splitter[T]{dec: dec, w: w}
	if ok = sp.run(); !ok {
		sp.failed.Store(true) // the workers may stop
	}
	sp.finish()
	if w.err != nil {
		return nil, false, w.err
	}
	if !ok || sp.failed.Load() {
		return nil, false, nil
	}
	return sp.collect()
}

func (sp *splitter[T]) run() bool {
	c, ok := sp.skipWS()
	switch {
	case !ok:
		return false // empty: the general path says what that is
	case c == '{':
		for {
			if !sp.jsonDoc() {
				return false
			}
			c, ok := sp.skipWS()
			if !ok {
				return true
			}
			if c != '{' {
				return false
			}
		}
	case c == '[' || c >= 0x80:
		return false
	}
	sp.pos = sp.mark // YAML: from the first byte
	for {
		more, ok := sp.yamlDoc()
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

// refill reads more input, keeping the bytes from mark on.
func (sp *splitter[T]) refill() bool {
	if !sp.w.refill(sp.mark) {
		return false
	}
	sp.pos -= sp.mark
	sp.mark = 0
	return true
}

// skipWS moves past JSON whitespace (leaving mark at the start of the
// input for the first call) and returns the next byte, ok false at the end.
func (sp *splitter[T]) skipWS() (byte, bool) {
	for {
		b := sp.w.buf
		for sp.pos < len(b) {
			switch b[sp.pos] {
			case ' ', '\t', '\n', '\r':
				sp.pos++
			default:
				return b[sp.pos], true
			}
		}
		if sp.docs != nil {
			sp.mark = sp.pos
		}
		if !sp.refill() {
			return 0, false
		}
	}
}

// newDoc starts a document.
func (sp *splitter[T]) newDoc() *fastDoc[T] {
	d := &fastDoc[T]{}
	sp.docs = append(sp.docs, d)
	return d
}

// batch returns the batch of d's items being filled.
func (sp *splitter[T]) batch(d *fastDoc[T], yaml bool) *batch[T] {
	if sp.cur == nil {
		var data []byte
		select {
		case data = <-sp.free:
		default:
			data = make([]byte, 0, batchBytes+batchBytes/4)
		}
		sp.cur = &batch[T]{yaml: yaml, data: data}
		d.batches = append(d.batches, sp.cur)
	}
	return sp.cur
}

// endItem ends the item written last to the current batch, handing the
// batch to a worker once it is full.
func (sp *splitter[T]) endItem() {
	b := sp.cur
	b.ends = append(b.ends, len(b.data))
	if len(b.data) >= batchBytes {
		sp.flush()
	}
}

// flush hands the current batch to the workers, starting them.
func (sp *splitter[T]) flush() {
	b := sp.cur
	if b == nil {
		return
	}
	sp.cur = nil
	b.out = make([]fastItem[T], len(b.ends))
	if sp.jobs == nil {
		workers := max(1, runtime.GOMAXPROCS(0))
		sp.jobs = make(chan *batch[T], workers)
		sp.free = make(chan []byte, 2*workers+2)
		for range workers {
			sp.wg.Add(1)
			go func() {
				defer sp.wg.Done()
				w := worker[T]{item: sp.dec.Worker()}
				for b := range sp.jobs {
					sp.work(b, &w)
				}
			}()
		}
	}
	sp.jobs <- b
}

// finish waits for the workers.
func (sp *splitter[T]) finish() {
	sp.flush()
	if sp.jobs != nil {
		close(sp.jobs)
		sp.wg.Wait()
	}
}

// worker is the state of one worker: its YAML parser and the buffer it
// converts into, reused from item to item, and its decoder of items.
type worker[T any] struct {
	p    yamljson.Parser
	out  []byte
	item func(js []byte, apiVersion, kind string) (T, error)
}

// toJSON returns the JSON of the YAML item as yaml.YAMLToJSON does, with
// metadata.managedFields[*].fieldsV1 left out, valid until
// the next call.
func (w *worker[T]) toJSON(item []byte) ([]byte, error) {
	if js, ok := w.p.Convert(w.out[:0], item, true); ok {
		w.out = js
		return js, nil
	}
	return yaml.YAMLToJSON(item)
}

// work decodes the items of b, or marks the splitter failed.
func (sp *splitter[T]) work(b *batch[T], w *worker[T]) {
	start := 0
	for i, end := range b.ends {
		if sp.failed.Load() {
			break
		}
		js := b.data[start:end]
		start = end
		if b.yaml {
			var err error
			if js, err = w.toJSON(js); err != nil {
				sp.failed.Store(true)
				break
			}
		}
		apiVersion, kind, ok := fastjson.ItemType(js)
		if !ok {
			sp.failed.Store(true)
			break
		}
		if apiVersion == "" || kind == "" {
			b.out[i].pending = bytes.Clone(js)
			continue
		}
		o, err := w.item(js, apiVersion, kind)
		if err != nil {
			sp.failed.Store(true)
			break
		}
		b.out[i].obj = o
	}
	select {
	case sp.free <- b.data[:0]:
	default:
	}
	b.data, b.ends = nil, nil
}

// collect returns the objects of every document in input order, decoding
// the items that waited for their List's kind.
func (sp *splitter[T]) collect() ([]T, bool, error) {
	var objs []T
	for _, d := range sp.docs {
		objs = append(objs, d.objs...)
		for _, b := range d.batches {
			for _, it := range b.out {
				if it.pending == nil {
					objs = append(objs, it.obj)
					continue
				}
				got, err := sp.dec.Object(it.pending, d.version, d.itemKind)
				if err != nil {
					return nil, false, nil
				}
				objs = append(objs, got...)
			}
		}
	}
	return objs, true, nil
}
