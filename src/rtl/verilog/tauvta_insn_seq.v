// The instruction sequence every module follows (docs/vta_isa.md section 3): take the next command
// off its queue, wait until every token it pops is there, pop them, execute, then push its tokens
// once every queue it pushes into has room. The module around it says which queues an
// instruction uses (need_*) and does the work between exec_go and exec_done.
//
// Timing (the timing model's, docs/rtl.md "Cycle for cycle"): exec_go is the instruction's one
// issue cycle; exec_done comes in the last cycle of its work, and the instruction retires (pushes)
// in that same cycle when its queues have room. The next command is taken in the retiring cycle,
// so the next exec_go can come in the following cycle.
module tauvta_insn_seq (
  input  wire clk,
  input  wire rst,
  input  wire enable,           // the module's ap_start or auto-restart bit
  input  wire cmd_valid,
  input  wire [127:0] cmd,
  output wire cmd_ready,
  output reg  [127:0] insn,     // the instruction being run, stable from dequeue to retirement
  input  wire need_pop0,
  input  wire need_pop1,
  input  wire can_pop0,
  input  wire can_pop1,
  output wire pop0,
  output wire pop1,
  input  wire need_push0,
  input  wire need_push1,
  input  wire can_push0,
  input  wire can_push1,
  output wire push0,
  output wire push1,
  output wire exec_go,          // one cycle: start executing insn
  input  wire exec_done,        // the last cycle of insn's work (may be the exec_go cycle)
  output wire busy,             // executing (from exec_go to exec_done)
  output wire wait_token,       // holding an instruction whose tokens are not there yet
  output wire wait_push,        // executed, a queue it pushes into is full
  output wire retired           // one cycle: an instruction finished (its tokens pushed)
);
  localparam S_EMPTY = 2'd0, S_WAIT = 2'd1, S_EXEC = 2'd2, S_PUSH = 2'd3;
  reg [1:0] state;
  wire pops_ok = (!need_pop0 || can_pop0) && (!need_pop1 || can_pop1);
  wire pushes_ok = (!need_push0 || can_push0) && (!need_push1 || can_push1);
  assign exec_go = state == S_WAIT && pops_ok;
  wire working = state == S_EXEC || exec_go;
  wire done_now = working && exec_done;
  assign retired = (done_now || state == S_PUSH) && pushes_ok;
  assign cmd_ready = enable && (state == S_EMPTY || retired);
  assign pop0 = exec_go && need_pop0;
  assign pop1 = exec_go && need_pop1;
  assign push0 = retired && need_push0;
  assign push1 = retired && need_push1;
  assign busy = working;
  assign wait_token = state == S_WAIT && !pops_ok;
  assign wait_push = (done_now || state == S_PUSH) && !pushes_ok;
  always @(posedge clk) begin
    if (rst) begin
      state <= S_EMPTY;
    end else begin
      if (cmd_valid && cmd_ready) begin
        insn <= cmd;
        state <= S_WAIT;
      end else if (retired) begin
        state <= S_EMPTY;
      end else if (done_now) begin
        state <= S_PUSH;
      end else if (exec_go) begin
        state <= S_EXEC;
      end
    end
  end
endmodule
