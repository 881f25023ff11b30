// The kube-apiserver command of the k8s.io/kubernetes release this module requires.
// k8s.io/kubernetes cannot be `go install`ed (its go.mod points the k8s.io/* staging
// modules at local folders), so scripts/kube/build.mjs writes a go.mod beside this
// file that requires the release and pins each staging module to its published v0.N.x.
package main

import (
	"os"
	_ "time/tzdata"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
