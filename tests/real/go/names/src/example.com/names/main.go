// Heap profile with Go names that short names would merge: a module at a
// major version (example.com/badger/v3) and one method name in two packages
// (html/template and text/template (*Template).Parse).
package main

import (
	htmltemplate "html/template"
	"os"
	"runtime"
	"runtime/pprof"
	texttemplate "text/template"

	"example.com/badger/v3"
)

var keep []interface{}

func main() {
	runtime.MemProfileRate = 1
	db := &badger.DB{}
	db.View(256)
	keep = append(keep, db)
	for i := 0; i < 200; i++ {
		h, _ := htmltemplate.New("h").Parse("<p>{{.A}} and {{.B}} {{range .C}}{{.}}{{end}}</p>")
		t, _ := texttemplate.New("t").Parse("{{.A}} and {{.B}} {{range .C}}{{.}}{{end}}")
		keep = append(keep, h, t)
	}
	runtime.GC()
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		panic(err)
	}
	f.Close()
}
