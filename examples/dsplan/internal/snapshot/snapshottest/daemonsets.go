package snapshottest

// The DaemonSets of a generated cluster, as the API server returns them
// (defaulted), before status, identity and managedFields are added. Their
// templates follow the upstream manifests of each project, shortened.
var daemonSetYAML = []string{kubeProxyYAML, ciliumYAML, ebsCSINodeYAML, nodeLocalDNSYAML, nodeExporterYAML, fluentBitYAML}

const kubeProxyYAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
  labels: {k8s-app: kube-proxy, eks.amazonaws.com/component: kube-proxy}
spec:
  revisionHistoryLimit: 10
  selector: {matchLabels: {k8s-app: kube-proxy}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 10%}}
  template:
    metadata:
      labels: {k8s-app: kube-proxy}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: kubernetes.io/os, operator: In, values: [linux]}
              - {key: kubernetes.io/arch, operator: In, values: [amd64, arm64]}
              - {key: eks.amazonaws.com/compute-type, operator: NotIn, values: [fargate, auto]}
      containers:
      - name: kube-proxy
        image: 602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.36.3-minimal-eksbuild.2
        imagePullPolicy: IfNotPresent
        command: [kube-proxy, --v=2, --config=/var/lib/kube-proxy-config/config, --hostname-override=$(NODE_NAME)]
        env:
        - name: NODE_NAME
          valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}
        resources: {requests: {cpu: 100m}}
        securityContext: {privileged: true}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
        volumeMounts:
        - {name: varlog, mountPath: /var/log}
        - {name: xtables-lock, mountPath: /run/xtables.lock}
        - {name: lib-modules, mountPath: /lib/modules, readOnly: true}
        - {name: kubeconfig, mountPath: /var/lib/kube-proxy/}
        - {name: config, mountPath: /var/lib/kube-proxy-config/}
      dnsPolicy: ClusterFirst
      hostNetwork: true
      priorityClassName: system-node-critical
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      serviceAccount: kube-proxy
      serviceAccountName: kube-proxy
      terminationGracePeriodSeconds: 30
      tolerations:
      - operator: Exists
      volumes:
      - {name: varlog, hostPath: {path: /var/log, type: ""}}
      - {name: xtables-lock, hostPath: {path: /run/xtables.lock, type: FileOrCreate}}
      - {name: lib-modules, hostPath: {path: /lib/modules, type: ""}}
      - {name: kubeconfig, configMap: {name: kube-proxy, defaultMode: 420}}
      - {name: config, configMap: {name: kube-proxy-config, defaultMode: 420}}
`

const ciliumYAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium
  namespace: kube-system
  labels: {k8s-app: cilium, app.kubernetes.io/name: cilium-agent, app.kubernetes.io/part-of: cilium}
  annotations: {meta.helm.sh/release-name: cilium, meta.helm.sh/release-namespace: kube-system}
spec:
  revisionHistoryLimit: 10
  selector: {matchLabels: {k8s-app: cilium}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 2}}
  template:
    metadata:
      annotations:
        kubectl.kubernetes.io/default-container: cilium-agent
        prometheus.io/port: "9962"
        prometheus.io/scrape: "true"
      labels: {k8s-app: cilium, app.kubernetes.io/name: cilium-agent, app.kubernetes.io/part-of: cilium}
    spec:
      automountServiceAccountToken: true
      containers:
      - name: cilium-agent
        image: quay.io/cilium/cilium:v1.18.2@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667
        imagePullPolicy: IfNotPresent
        command: [cilium-agent]
        args: [--config-dir=/tmp/cilium/config-map]
        env:
        - name: K8S_NODE_NAME
          valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}
        - name: CILIUM_K8S_NAMESPACE
          valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.namespace}}
        - {name: KUBERNETES_SERVICE_HOST, value: 7E1B4C1D2A3F.gr7.us-east-1.eks.amazonaws.com}
        livenessProbe:
          httpGet:
            host: 127.0.0.1
            path: /healthz
            port: 9879
            scheme: HTTP
            httpHeaders: [{name: brief, value: "true"}]
          failureThreshold: 10
          periodSeconds: 30
          successThreshold: 1
          timeoutSeconds: 5
        ports:
        - {name: peer-service, containerPort: 4244, hostPort: 4244, protocol: TCP}
        - {name: prometheus, containerPort: 9962, hostPort: 9962, protocol: TCP}
        resources: {requests: {cpu: 100m, memory: 512Mi}, limits: {memory: 2Gi}}
        securityContext:
          capabilities:
            add: [NET_ADMIN, NET_RAW, SYS_MODULE, SYS_ADMIN, SYS_RESOURCE]
            drop: [ALL]
          seLinuxOptions: {level: s0, type: spc_t}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: FallbackToLogsOnError
        volumeMounts:
        - {name: bpf-maps, mountPath: /sys/fs/bpf, mountPropagation: HostToContainer}
        - {name: etc-cni-netd, mountPath: /host/etc/cni/net.d}
        - {name: lib-modules, mountPath: /lib/modules, readOnly: true}
        - {name: xtables-lock, mountPath: /run/xtables.lock}
        - {name: tmp, mountPath: /tmp}
      dnsPolicy: ClusterFirst
      hostNetwork: true
      nodeSelector: {kubernetes.io/os: linux}
      priorityClassName: system-node-critical
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {appArmorProfile: {type: Unconfined}, seccompProfile: {type: Unconfined}}
      serviceAccount: cilium
      serviceAccountName: cilium
      terminationGracePeriodSeconds: 1
      tolerations:
      - operator: Exists
      volumes:
      - {name: tmp, emptyDir: {}}
      - {name: bpf-maps, hostPath: {path: /sys/fs/bpf, type: DirectoryOrCreate}}
      - {name: etc-cni-netd, hostPath: {path: /etc/cni/net.d, type: DirectoryOrCreate}}
      - {name: lib-modules, hostPath: {path: /lib/modules, type: ""}}
      - {name: xtables-lock, hostPath: {path: /run/xtables.lock, type: FileOrCreate}}
`

const ebsCSINodeYAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ebs-csi-node
  namespace: kube-system
  labels: {app: ebs-csi-node, app.kubernetes.io/component: csi-driver, app.kubernetes.io/managed-by: EKS, app.kubernetes.io/name: aws-ebs-csi-driver, app.kubernetes.io/version: 1.48.0}
spec:
  revisionHistoryLimit: 10
  selector: {matchLabels: {app: ebs-csi-node, app.kubernetes.io/name: aws-ebs-csi-driver}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 10%}}
  template:
    metadata:
      labels: {app: ebs-csi-node, app.kubernetes.io/component: csi-driver, app.kubernetes.io/managed-by: EKS, app.kubernetes.io/name: aws-ebs-csi-driver, app.kubernetes.io/version: 1.48.0}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: eks.amazonaws.com/compute-type, operator: NotIn, values: [fargate, auto, hybrid]}
              - {key: node.kubernetes.io/instance-type, operator: NotIn, values: [a1.medium, a1.large, a1.xlarge, a1.2xlarge, a1.4xlarge]}
      containers:
      - name: ebs-plugin
        image: 602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-ebs-csi-driver:v1.48.0
        imagePullPolicy: IfNotPresent
        args: [node, --endpoint=$(CSI_ENDPOINT), --csi-mount-point-prefix=/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/, --logging-format=text, --v=2]
        env:
        - {name: CSI_ENDPOINT, value: "unix:/csi/csi.sock"}
        - name: CSI_NODE_NAME
          valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}
        resources: {requests: {cpu: 10m, memory: 40Mi}, limits: {memory: 256Mi}}
        securityContext: {privileged: true, readOnlyRootFilesystem: true}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
        volumeMounts:
        - {name: kubelet-dir, mountPath: /var/lib/kubelet, mountPropagation: Bidirectional}
        - {name: plugin-dir, mountPath: /csi}
        - {name: device-dir, mountPath: /dev}
      - name: node-driver-registrar
        image: 602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/csi-node-driver-registrar:v2.14.0-eks-1-33-8
        imagePullPolicy: IfNotPresent
        args: [--csi-address=$(ADDRESS), --kubelet-registration-path=$(DRIVER_REG_SOCK_PATH), --v=2]
        env:
        - {name: ADDRESS, value: /csi/csi.sock}
        - {name: DRIVER_REG_SOCK_PATH, value: /var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock}
        resources: {requests: {cpu: 10m, memory: 40Mi}, limits: {memory: 256Mi}}
        securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
        volumeMounts:
        - {name: plugin-dir, mountPath: /csi}
        - {name: registration-dir, mountPath: /registration}
      dnsPolicy: ClusterFirst
      nodeSelector: {kubernetes.io/os: linux}
      priorityClassName: system-node-critical
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {fsGroup: 0, runAsGroup: 0, runAsNonRoot: false, runAsUser: 0}
      serviceAccount: ebs-csi-node-sa
      serviceAccountName: ebs-csi-node-sa
      terminationGracePeriodSeconds: 30
      tolerations:
      - {key: CriticalAddonsOnly, operator: Exists}
      - {effect: NoExecute, operator: Exists, tolerationSeconds: 300}
      volumes:
      - {name: kubelet-dir, hostPath: {path: /var/lib/kubelet, type: Directory}}
      - {name: plugin-dir, hostPath: {path: /var/lib/kubelet/plugins/ebs.csi.aws.com/, type: DirectoryOrCreate}}
      - {name: registration-dir, hostPath: {path: /var/lib/kubelet/plugins_registry/, type: Directory}}
      - {name: device-dir, hostPath: {path: /dev, type: Directory}}
`

const nodeLocalDNSYAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-local-dns
  namespace: kube-system
  labels: {k8s-app: node-local-dns, kubernetes.io/cluster-service: "true", addonmanager.kubernetes.io/mode: Reconcile}
spec:
  revisionHistoryLimit: 10
  selector: {matchLabels: {k8s-app: node-local-dns}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 10%}}
  template:
    metadata:
      annotations: {prometheus.io/port: "9253", prometheus.io/scrape: "true"}
      labels: {k8s-app: node-local-dns}
    spec:
      containers:
      - name: node-cache
        image: registry.k8s.io/dns/k8s-dns-node-cache:1.26.4
        imagePullPolicy: IfNotPresent
        args: [-localip, "169.254.20.10,172.20.0.10", -conf, /etc/Corefile, -upstreamsvc, kube-dns-upstream]
        livenessProbe:
          httpGet: {host: 169.254.20.10, path: /health, port: 8080, scheme: HTTP}
          failureThreshold: 3
          initialDelaySeconds: 60
          periodSeconds: 10
          successThreshold: 1
          timeoutSeconds: 5
        ports:
        - {name: dns, containerPort: 53, hostPort: 53, protocol: UDP}
        - {name: dns-tcp, containerPort: 53, hostPort: 53, protocol: TCP}
        - {name: metrics, containerPort: 9253, hostPort: 9253, protocol: TCP}
        resources: {requests: {cpu: 25m, memory: 5Mi}}
        securityContext: {capabilities: {add: [NET_ADMIN]}}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
        volumeMounts:
        - {name: xtables-lock, mountPath: /run/xtables.lock}
        - {name: config-volume, mountPath: /etc/coredns}
        - {name: kube-dns-config, mountPath: /etc/kube-dns}
      dnsPolicy: Default
      hostNetwork: true
      priorityClassName: system-node-critical
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      serviceAccount: node-local-dns
      serviceAccountName: node-local-dns
      terminationGracePeriodSeconds: 30
      tolerations:
      - {key: CriticalAddonsOnly, operator: Exists}
      - {effect: NoExecute, operator: Exists}
      - {effect: NoSchedule, operator: Exists}
      volumes:
      - {name: xtables-lock, hostPath: {path: /run/xtables.lock, type: FileOrCreate}}
      - {name: kube-dns-config, configMap: {name: kube-dns, optional: true, defaultMode: 420}}
      - name: config-volume
        configMap:
          name: node-local-dns
          defaultMode: 420
          items: [{key: Corefile, path: Corefile.base}]
`

const nodeExporterYAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-exporter
  namespace: monitoring
  labels: {app.kubernetes.io/component: exporter, app.kubernetes.io/name: node-exporter, app.kubernetes.io/part-of: kube-prometheus, app.kubernetes.io/version: 1.9.1}
spec:
  revisionHistoryLimit: 10
  selector: {matchLabels: {app.kubernetes.io/component: exporter, app.kubernetes.io/name: node-exporter, app.kubernetes.io/part-of: kube-prometheus}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 10%}}
  template:
    metadata:
      annotations: {kubectl.kubernetes.io/default-container: node-exporter}
      labels: {app.kubernetes.io/component: exporter, app.kubernetes.io/name: node-exporter, app.kubernetes.io/part-of: kube-prometheus, app.kubernetes.io/version: 1.9.1}
    spec:
      automountServiceAccountToken: true
      containers:
      - name: node-exporter
        image: quay.io/prometheus/node-exporter:v1.9.1
        imagePullPolicy: IfNotPresent
        args:
        - --web.listen-address=127.0.0.1:9101
        - --path.sysfs=/host/sys
        - --path.rootfs=/host/root
        - --path.udev.data=/host/root/run/udev/data
        - --collector.filesystem.mount-points-exclude=^/(dev|proc|sys|run/k3s/containerd/.+|var/lib/docker/.+|var/lib/kubelet/pods/.+)($|/)
        resources: {requests: {cpu: 102m, memory: 180Mi}, limits: {cpu: 250m, memory: 180Mi}}
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {add: [SYS_TIME], drop: [ALL]}
          readOnlyRootFilesystem: true
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
        volumeMounts:
        - {name: sys, mountPath: /host/sys, mountPropagation: HostToContainer, readOnly: true}
        - {name: root, mountPath: /host/root, mountPropagation: HostToContainer, readOnly: true}
      dnsPolicy: ClusterFirst
      hostNetwork: true
      hostPID: true
      nodeSelector: {kubernetes.io/os: linux}
      priorityClassName: system-cluster-critical
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {runAsGroup: 65534, runAsNonRoot: true, runAsUser: 65534}
      serviceAccount: node-exporter
      serviceAccountName: node-exporter
      terminationGracePeriodSeconds: 30
      tolerations:
      - operator: Exists
      volumes:
      - {name: sys, hostPath: {path: /sys, type: ""}}
      - {name: root, hostPath: {path: /, type: ""}}
`

const fluentBitYAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluent-bit
  namespace: logging
  labels: {app.kubernetes.io/instance: fluent-bit, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/name: fluent-bit, app.kubernetes.io/version: 3.2.5, helm.sh/chart: fluent-bit-0.48.6}
  annotations: {meta.helm.sh/release-name: fluent-bit, meta.helm.sh/release-namespace: logging}
spec:
  revisionHistoryLimit: 10
  selector: {matchLabels: {app.kubernetes.io/instance: fluent-bit, app.kubernetes.io/name: fluent-bit}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 10%}}
  template:
    metadata:
      annotations: {checksum/config: 5f3b2c9e8d1a4f6b7c0e2d9a8b1c3e5f7a9d0b2c4e6f8a1b3d5c7e9f0a2b4c6d}
      labels: {app.kubernetes.io/instance: fluent-bit, app.kubernetes.io/name: fluent-bit}
    spec:
      containers:
      - name: fluent-bit
        image: cr.fluentbit.io/fluent/fluent-bit:3.2.5
        imagePullPolicy: IfNotPresent
        args: [--workdir=/fluent-bit/etc, --config=/fluent-bit/etc/conf/fluent-bit.conf]
        command: [/fluent-bit/bin/fluent-bit]
        livenessProbe:
          httpGet: {path: /, port: http, scheme: HTTP}
          failureThreshold: 3
          periodSeconds: 10
          successThreshold: 1
          timeoutSeconds: 1
        ports: [{name: http, containerPort: 2020, protocol: TCP}]
        resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {memory: 256Mi}}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
        volumeMounts:
        - {name: config, mountPath: /fluent-bit/etc/conf}
        - {name: varlog, mountPath: /var/log}
        - {name: varlibdockercontainers, mountPath: /var/lib/docker/containers, readOnly: true}
        - {name: etcmachineid, mountPath: /etc/machine-id, readOnly: true}
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      serviceAccount: fluent-bit
      serviceAccountName: fluent-bit
      terminationGracePeriodSeconds: 30
      tolerations:
      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      volumes:
      - {name: config, configMap: {name: fluent-bit, defaultMode: 420}}
      - {name: varlog, hostPath: {path: /var/log, type: ""}}
      - {name: varlibdockercontainers, hostPath: {path: /var/lib/docker/containers, type: ""}}
      - {name: etcmachineid, hostPath: {path: /etc/machine-id, type: File}}
`
