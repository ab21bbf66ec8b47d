// region: at least one partition.
func.func @f(%n: i32) {
  warp_group.region {
  }
  func.return
}
