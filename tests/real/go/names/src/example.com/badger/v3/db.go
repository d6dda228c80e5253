// Package badger stands for a module at a major version (import path .../v3).
package badger

type DB struct{ blocks [][]byte }

//go:noinline
func (db *DB) View(n int) {
	for i := 0; i < n; i++ {
		db.blocks = append(db.blocks, make([]byte, 4096))
	}
}
