// The etcd server of the version the Kubernetes releases under test require
// (scripts/kube/build.mjs writes the go.mod beside this file).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
