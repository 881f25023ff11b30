// watch-client: times client-go watches of one resource as a controller receives them, with the
// dynamic client decoding every event into an object. Prints one line per watch, "MILLISECONDS EVENTS",
// the time taken from the request to the end of the stream. Built by scripts/kube/build.mjs; driven by
// bench/throughput/watch-client.ts.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	group := flag.String("group", "", "API group")
	version := flag.String("version", "v1", "API version")
	resource := flag.String("resource", "", "resource (plural)")
	namespace := flag.String("namespace", "", "namespace")
	resourceVersion := flag.String("resource-version", "", "resourceVersion to watch from")
	watches := flag.Int("watches", 1, "watches, one after the other, over one client")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeconfig: %v\n", err)
		os.Exit(2)
	}
	// No client-side rate limit: the watches are timed, not throttled.
	config.QPS, config.Burst = -1, 0
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dynamic client: %v\n", err)
		os.Exit(2)
	}
	gvr := schema.GroupVersionResource{Group: *group, Version: *version, Resource: *resource}
	for i := 0; i < *watches; i++ {
		start := time.Now()
		w, err := client.Resource(gvr).Namespace(*namespace).Watch(context.Background(),
			metav1.ListOptions{ResourceVersion: *resourceVersion, AllowWatchBookmarks: true})
		if err != nil {
			fmt.Fprintf(os.Stderr, "watch: %v\n", err)
			os.Exit(1)
		}
		events := 0
		for e := range w.ResultChan() {
			if e.Object != nil {
				events++
			}
		}
		fmt.Printf("%.1f %d\n", float64(time.Since(start).Microseconds())/1000, events)
	}
}
