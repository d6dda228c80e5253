// A Go program for hpa's tests: methods of two types allocate, so their
// names differ only inside the parentheses; it writes its heap profile as
// pprof protobuf and as the legacy text form.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

type treeNode struct {
	kids []*treeNode
	data []byte
}

type listNode struct {
	next *listNode
	data []byte
}

var keep []interface{}

func (t *treeNode) insert(n int) {
	for i := 0; i < n; i++ {
		c := &treeNode{data: make([]byte, 4096)}
		t.kids = append(t.kids, c)
	}
}

func (l *listNode) insert(n int) {
	for i := 0; i < n; i++ {
		l.next = &listNode{next: l.next, data: make([]byte, 1024)}
	}
}

func main() {
	runtime.MemProfileRate = 4096
	t := &treeNode{}
	l := &listNode{}
	t.insert(2000)
	l.insert(3000)
	func() {
		keep = append(keep, make([]byte, 64<<10))
	}()
	keep = append(keep, t, l)
	runtime.GC()
	f, _ := os.Create(os.Args[1])
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
	g, _ := os.Create(os.Args[2])
	pprof.Lookup("heap").WriteTo(g, 1)
	g.Close()
}
