// ws.regs_per_thread (ws-register-budget's estimate) belongs on a warp-group branch.
builtin.module {
  func.func @k() attributes {ws.regs_per_thread = 40 : i32} {
    func.return
  }
}
