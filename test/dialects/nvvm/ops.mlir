// The nvvm dialect in custom form: round trip, generic form, and the generic
// form re-parsing to the same custom text.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @ops(%x: f32, %i: i32)
// CHECK-NEXT: %t = nvvm.read_sreg tid.x : i32
// CHECK-NEXT: %c = nvvm.read_sreg ctaid.y : i32
// CHECK-NEXT: %y = nvvm.shfl_sync bfly %x, 2 : f32
// CHECK-NEXT: %j = nvvm.shfl_sync idx %i, 0 : i32
// CHECK-NEXT: nvvm.barrier 0
// CHECK-NEXT: nvvm.barrier 1 threads 256
// CHECK-NEXT: nvvm.barrier_arrive 4 threads 256
// CHECK-NEXT: %e = nvvm.elect_sync : i1
// GENERIC: %t = "nvvm.read_sreg"() <{reg = "tid.x"}> : () -> i32
// GENERIC: %y = "nvvm.shfl_sync"(%x) <{mode = "bfly", offset = 2 : i32}> : (f32) -> f32
// GENERIC: "nvvm.barrier"() <{id = 1 : i32, threads = 256 : i32}> : () -> ()
// GENERIC-NEXT: "nvvm.barrier_arrive"() <{id = 4 : i32, threads = 256 : i32}> : () -> ()
// GENERIC-NEXT: %e = "nvvm.elect_sync"() : () -> i1
func.func @ops(%x: f32, %i: i32) {
  %t = nvvm.read_sreg tid.x : i32
  %c = nvvm.read_sreg ctaid.y : i32
  %y = nvvm.shfl_sync bfly %x, 2 : f32
  %j = nvvm.shfl_sync idx %i, 0 : i32
  nvvm.barrier 0
  nvvm.barrier 1 threads 256
  nvvm.barrier_arrive 4 threads 256
  %e = nvvm.elect_sync : i1
  func.return
}
