// --memplan-arena: one i8 arena per function, statically shaped allocs become memref.view
// slices of it at offsets planned by memplan.
//
// Per function:
//  1. Candidates: every memref.alloc with a static shape, identity layout, default memory
//     space, int/float/index elements and a power-of-two alignment, whose alias closure
//     (views, subviews, reshapes, casts) never escapes (returned, passed to a call, yielded,
//     branched, stored or used by an op without known memory effects) and is only used in
//     its own block or in scf regions nested in it. Others stay and get a remark.
//  2. Deallocs of the candidates are erased (the arena replaces them), so they do not count
//     as uses: the dealloc pipeline places them at the end of a block, not at the last use.
//  3. Lifetimes from mlir::Liveness: for every alias, the end operation in its block, lifted
//     to its ancestor in the alloc's block. Operations are numbered in a pre-order walk; an
//     ancestor region op (scf.for, scf.if) covers its whole subtree, so a buffer used inside
//     a loop lives for the whole loop, while one allocated in the loop body lives within one
//     iteration and reuses its slot on each iteration.
//  4. memplan solves (bridge, exceptions caught there) and its validator checks the plan.
//  5. Rewrite: arena alloc at the top of the entry block (or a new function argument),
//     views at the planned byte shifts, one arena dealloc before each return when the
//     planned buffers had deallocs.
#include "Passes.h"

#include <cmath>
#include <string>

#include "Bridge.h"
#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace memplan_mlir {
namespace {

struct Candidate {
  memref::AllocOp alloc;
  SmallVector<Value> aliases;               // the alloc's result and every view of it
  SmallVector<memref::DeallocOp> deallocs;  // deallocs of the alloc itself
  int64_t size = 0;
  int64_t alignment = 1;
};

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Bytes per element as the LLVM lowering lays them out: the bit width rounded up to whole
// bytes, then to a power of two (i1 -> 1, i24 -> 4, f16 -> 2); index through DataLayout.
int64_t elementBytes(Type t, const DataLayout& layout) {
  if (t.isIndex()) return static_cast<int64_t>(layout.getTypeSize(t));
  if (!t.isIntOrFloat()) return 0;
  int64_t bytes = (static_cast<int64_t>(t.getIntOrFloatBitWidth()) + 7) / 8;
  int64_t p = 1;
  while (p < bytes) p *= 2;
  return p;
}

// Ops whose regions run sequentially, one iteration at a time, so program order is time
// order inside them. Allocs or uses under anything else (scf.parallel, async.execute,
// gpu.launch, ...) are not planned.
bool isSequentialRegionOp(Operation* op) {
  return isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp, scf::IndexSwitchOp>(op);
}

// Every op between `op` (exclusive) and `block` must be a sequential region op.
bool nestedSequentially(Operation* op, Block* block) {
  for (Operation* p = op->getParentOp(); p && p->getBlock() != nullptr; p = p->getParentOp()) {
    if (p == block->getParentOp()) return true;
    if (!isSequentialRegionOp(p)) return false;
  }
  return op->getBlock() == block;
}

// Follows the alias closure of the alloc; returns why it cannot be planned, or "".
std::string collectAliases(Candidate& c) {
  Value root = c.alloc.getResult();
  Block* home = c.alloc->getBlock();
  SmallVector<Value> work{root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    c.aliases.push_back(v);
    for (OpOperand& use : v.getUses()) {
      Operation* user = use.getOwner();
      if (!home->findAncestorOpInBlock(*user)) return "used outside its block";
      if (!nestedSequentially(user, home))
        return "used inside '" + user->getParentOp()->getName().getStringRef().str() + "'";
      if (auto d = dyn_cast<memref::DeallocOp>(user)) {
        if (v != root) return "deallocated through an alias";
        c.deallocs.push_back(d);
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v) {
        for (Value r : user->getResults()) work.push_back(r);
        continue;
      }
      if (isa<memref::CastOp>(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      if (isa<func::ReturnOp>(user)) return "escapes: returned";
      if (isa<CallOpInterface>(user)) return "escapes: passed to a call";
      if (isa<RegionBranchTerminatorOpInterface, BranchOpInterface>(user))
        return "escapes: yielded or passed to another block";
      if (isa<RegionBranchOpInterface>(user))
        return "escapes: passed into '" + user->getName().getStringRef().str() + "'";
      if (isa<memref::DimOp>(user)) continue;
      const std::string name = user->getName().getStringRef().str();
      // A result may hold the buffer's address when it is a memref or tensor, or a type of
      // another dialect (a pointer, say); a builtin scalar, vector or complex is a value.
      // (The test was on the dialect's namespace, which "builtin" has: every scalar result,
      // memref.load's included, counted as an alias, and after linalg was lowered to loops
      // no alloc was planned.)
      for (Type t : user->getResultTypes())
        if ((isa<ShapedType>(t) && !isa<VectorType>(t)) || !isa<BuiltinDialect>(t.getDialect()))
          return "escapes: aliased by the result of '" + name + "'";
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) return "escapes: used by '" + name + "' (unknown memory effects)";
      SmallVector<MemoryEffects::EffectInstance> onValue;
      effects.getEffectsOnValue(v, onValue);
      if (onValue.empty()) return "escapes: stored or captured by '" + name + "'";
    }
  }
  return "";
}

// Why this alloc cannot be planned, or "" (then c.size and c.alignment are set).
std::string checkAlloc(Candidate& c, const DataLayout& layout, int64_t defaultAlignment) {
  MemRefType type = c.alloc.getType();
  if (!type.hasStaticShape()) return "dynamic shape";
  if (!type.getLayout().isIdentity()) return "non-identity layout";
  if (type.getMemorySpace()) return "non-default memory space";
  for (Operation* p = c.alloc->getParentOp(); !isa<func::FuncOp>(p); p = p->getParentOp())
    if (!isSequentialRegionOp(p))
      return "inside '" + p->getName().getStringRef().str() + "' (may run concurrently)";
  const int64_t eb = elementBytes(type.getElementType(), layout);
  if (eb <= 0) return "unsupported element type";
  const int64_t n = type.getNumElements();
  if (n <= 0) return "zero size";
  if (n > (int64_t{1} << 62) / eb) return "size overflows 64 bits";
  c.size = n * eb;
  c.alignment = defaultAlignment;
  if (std::optional<uint64_t> a = c.alloc.getAlignment()) {
    if (!isPowerOfTwo(static_cast<int64_t>(*a))) return "alignment is not a power of two";
    c.alignment = static_cast<int64_t>(*a);
  }
  return collectAliases(c);
}

struct ArenaPass : public PassWrapper<ArenaPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ArenaPass)

  ArenaPass() = default;
  ArenaPass(const ArenaPass& other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "memplan-arena"; }
  StringRef getDescription() const final {
    return "Pack statically shaped memref.alloc ops into one i8 arena planned by memplan";
  }
  void getDependentDialects(DialectRegistry& registry) const override {
    registry.insert<arith::ArithDialect, memref::MemRefDialect>();
  }

  Option<std::string> algo{*this, "algo", llvm::cl::desc("memplan algorithm (memplan list)"),
                           llvm::cl::init("auto")};
  Option<double> timeLimit{*this, "time-limit",
                           llvm::cl::desc("solver time limit per function in seconds"),
                           llvm::cl::init(1.0)};
  Option<int64_t> alignment{*this, "alignment",
                            llvm::cl::desc("alignment of allocs without an alignment attribute"),
                            llvm::cl::init(16)};
  Option<int64_t> capacity{*this, "capacity",
                           llvm::cl::desc("arena capacity in bytes (0: unlimited)"),
                           llvm::cl::init(0)};
  Option<bool> arenaAsArgument{*this, "arena-as-argument",
                               llvm::cl::desc("take the arena as a new last function argument"),
                               llvm::cl::init(false)};

  void runOnOperation() override;
};

void ArenaPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal()) return;
  if (!isPowerOfTwo(alignment)) {
    emitError(func.getLoc()) << "memplan-arena: alignment=" << static_cast<int64_t>(alignment)
                             << " is not a power of two";
    return signalPassFailure();
  }
  // As the CLI refuses them: a negative or NaN limit is not "no limit", a negative capacity
  // not "none" (0 means none, as the option says).
  if (!(timeLimit >= 0) || !std::isfinite(static_cast<double>(timeLimit))) {
    emitError(func.getLoc()) << "memplan-arena: time-limit=" << static_cast<double>(timeLimit)
                             << " must be a finite number of seconds >= 0 (0: no limit)";
    return signalPassFailure();
  }
  if (capacity < 0) {
    emitError(func.getLoc()) << "memplan-arena: capacity=" << static_cast<int64_t>(capacity)
                             << " must be >= 0 bytes (0: unlimited)";
    return signalPassFailure();
  }
  const DataLayout layout = DataLayout::closest(func);

  // 1. Candidates.
  SmallVector<Candidate> cands;
  func.walk([&](memref::AllocOp alloc) {
    Candidate c;
    c.alloc = alloc;
    const std::string why = checkAlloc(c, layout, alignment);
    if (why.empty())
      cands.push_back(std::move(c));
    else
      emitRemark(alloc.getLoc()) << "memplan-arena: not planned: " << why;
  });
  if (cands.empty()) return;

  // 2. The arena replaces the deallocs; they must not extend lifetimes.
  bool hadDeallocs = false;
  for (Candidate& c : cands)
    for (memref::DeallocOp d : c.deallocs) {
      d.erase();
      hadDeallocs = true;
    }

  // 3. Lifetimes: pre-order numbers, Liveness end operations lifted to the alloc's block.
  llvm::DenseMap<Operation*, int64_t> first, last;
  int64_t counter = 0;
  std::function<void(Operation*)> number = [&](Operation* op) {
    first[op] = counter++;
    for (Region& r : op->getRegions())
      for (Block& b : r)
        for (Operation& inner : b) number(&inner);
    last[op] = counter - 1;
  };
  for (Block& b : func.getBody())
    for (Operation& op : b) number(&op);

  Liveness liveness(func);
  ArenaRequest request;
  request.algo = algo;
  request.time_limit_seconds = timeLimit;
  request.capacity = capacity;
  for (size_t i = 0; i < cands.size(); ++i) {
    Candidate& c = cands[i];
    Block* home = c.alloc->getBlock();
    int64_t end = first[c.alloc];
    for (Value a : c.aliases) {
      const LivenessBlockInfo* info = liveness.getLiveness(a.getParentBlock());
      if (info->isLiveOut(a)) {  // excluded by collectAliases; never plan it if it happens
        c.alloc.emitError() << "memplan-arena: internal error: alias live out of its block";
        return signalPassFailure();
      }
      Operation* endOp = info->getEndOperation(a, a.getDefiningOp());
      end = std::max(end, last[home->findAncestorOpInBlock(*endOp)]);
    }
    ArenaItem item;
    item.id = "alloc" + std::to_string(i);
    item.size = c.size;
    item.alignment = c.alignment;
    item.start = first[c.alloc];
    item.end = end + 1;
    request.items.push_back(item);
  }

  // 4. Plan.
  const ArenaPlan plan = plan_arena(request);
  if (!plan.ok) {
    InFlightDiagnostic diag = emitError(func.getLoc());
    diag << "memplan-arena: function '@" << func.getSymName() << "': " << plan.error << " ("
         << request.items.size() << " allocations, LOAD " << plan.load << " bytes";
    if (capacity > 0) diag << ", capacity " << static_cast<int64_t>(capacity) << " bytes";
    diag << ")";
    return signalPassFailure();
  }

  // 5. Rewrite.
  int64_t arenaAlign = alignment;
  int64_t before = 0;
  for (const Candidate& c : cands) {
    arenaAlign = std::max(arenaAlign, c.alignment);
    before += c.size;
  }
  MLIRContext* ctx = &getContext();
  auto arenaType = MemRefType::get({plan.peak}, IntegerType::get(ctx, 8));
  Block& entry = func.getBody().front();
  OpBuilder b(ctx);
  Value arena;
  if (arenaAsArgument) {
    const unsigned index = func.getNumArguments();
    func.insertArgument(index, arenaType, {}, func.getLoc());
    arena = func.getArgument(index);
    func.setArgAttr(index, "memplan.arena_alignment", b.getI64IntegerAttr(arenaAlign));
    func->setAttr("memplan.arena_size", b.getI64IntegerAttr(plan.peak));
  } else {
    b.setInsertionPointToStart(&entry);
    arena = b.create<memref::AllocOp>(func.getLoc(), arenaType, b.getI64IntegerAttr(arenaAlign));
    if (hadDeallocs)
      func.walk([&](func::ReturnOp ret) {
        if (ret->getParentOp() != func) return;
        b.setInsertionPoint(ret);
        b.create<memref::DeallocOp>(ret.getLoc(), arena);
      });
  }
  for (size_t i = 0; i < cands.size(); ++i) {
    memref::AllocOp alloc = cands[i].alloc;
    b.setInsertionPoint(alloc);
    Value shift = b.create<arith::ConstantIndexOp>(alloc.getLoc(), plan.offsets[i]);
    Value view =
        b.create<memref::ViewOp>(alloc.getLoc(), alloc.getType(), arena, shift, ValueRange{});
    alloc.getResult().replaceAllUsesWith(view);
    alloc.erase();
  }
  emitRemark(func.getLoc()) << "memplan-arena: function '@" << func.getSymName() << "': planned "
                    << cands.size() << " allocations (" << before << " bytes) into a "
                    << plan.peak << "-byte arena (LOAD " << plan.load << ", " << request.algo
                    << ", " << plan.status << ")";
}

}  // namespace

std::unique_ptr<Pass> createArenaPass() { return std::make_unique<ArenaPass>(); }

void registerMemplanPasses() { PassRegistration<ArenaPass>(); }

}  // namespace memplan_mlir
