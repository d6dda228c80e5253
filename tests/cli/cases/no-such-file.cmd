missing.heap
