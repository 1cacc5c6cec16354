;; The damped-trend grid of the window featurizer (src/model/features.ts), in
;; WebAssembly with 128-bit SIMD (f64x2). Assembled by `npm run build:kernel`
;; (tools/build-kernel.ts, wabt's wat2wasm) into src/model/kernel/damped-wasm.ts.
;;
;; Holt's damped trend on x[0 .. n) for every grid point (alpha, beta) and
;; damping phi: level l = x[0], trend t = x[1] − x[0] (0 when n = 1), then for
;; i = 1 .. n − 1: p = phi·t, e = x[i] − (l + p), sse += e·e, l = (l + p) +
;; alpha·e, t = p + beta·e; the grid point of least sse is chosen in grid order
;; (alpha, then beta, then phi), a later one only when its sse is below the
;; chosen one's minus 1e-12. Every operation is the TypeScript loop's (no fused
;; multiply-add), so both give the same bits. Two grid points (eight lanes, the
;; four phis each) run side by side; they stop early once every lane's sse has
;; reached the least sse chosen before them (sse only grows: such a lane can
;; never be chosen, which is all the TypeScript loop's own early stop relies on).
;;
;; Memory (bytes): 0: the result [level, trend, phi, sse]; 64: the four phis;
;; 96: the grid, 15 (alpha, beta) pairs; 512: x.
(module
  (import "env" "memory" (memory 1))
  (func (export "dampedTrend") (param $n i32)
    (local $g i32) (local $h i32) (local $i i32)
    (local $x0 f64) (local $trend0 f64)
    (local $dLevel f64) (local $dTrend f64) (local $dPhi f64) (local $dSse f64)
    (local $phiAB v128) (local $phiCD v128)
    (local $ag v128) (local $bg v128) (local $ah v128) (local $bh v128)
    (local $lgAB v128) (local $tgAB v128) (local $sgAB v128) (local $lgCD v128) (local $tgCD v128) (local $sgCD v128) (local $lhAB v128) (local $thAB v128) (local $shAB v128) (local $lhCD v128) (local $thCD v128) (local $shCD v128)
    (local $xi v128) (local $bound v128) (local $pt v128) (local $lp v128) (local $e v128)
    (local.set $x0 (f64.load offset=512 (i32.const 0)))
    (local.set $trend0 (f64.const 0))
    (if (i32.gt_s (local.get $n) (i32.const 1))
      (then (local.set $trend0 (f64.sub (f64.load offset=520 (i32.const 0)) (local.get $x0)))))
    (local.set $dLevel (local.get $x0))
    (local.set $dTrend (f64.const 0))
    (local.set $dPhi (f64.const 1))
    (local.set $dSse (f64.const inf))
    (local.set $phiAB (v128.load offset=64 (i32.const 0)))
    (local.set $phiCD (v128.load offset=80 (i32.const 0)))
    (local.set $g (i32.const 0))
    (loop $pairs
      ;; grid points g and h = g + 1 (the last pair repeats point 14, chosen once)
      (local.set $h (select (i32.add (local.get $g) (i32.const 1)) (i32.const 14) (i32.lt_s (local.get $g) (i32.const 14))))
      (local.set $ag (f64x2.splat (f64.load offset=96 (i32.shl (local.get $g) (i32.const 4)))))
      (local.set $bg (f64x2.splat (f64.load offset=104 (i32.shl (local.get $g) (i32.const 4)))))
      (local.set $ah (f64x2.splat (f64.load offset=96 (i32.shl (local.get $h) (i32.const 4)))))
      (local.set $bh (f64x2.splat (f64.load offset=104 (i32.shl (local.get $h) (i32.const 4)))))
      (local.set $lgAB (f64x2.splat (local.get $x0)))
      (local.set $tgAB (f64x2.splat (local.get $trend0)))
      (local.set $sgAB (v128.const f64x2 0 0))
      (local.set $lgCD (f64x2.splat (local.get $x0)))
      (local.set $tgCD (f64x2.splat (local.get $trend0)))
      (local.set $sgCD (v128.const f64x2 0 0))
      (local.set $lhAB (f64x2.splat (local.get $x0)))
      (local.set $thAB (f64x2.splat (local.get $trend0)))
      (local.set $shAB (v128.const f64x2 0 0))
      (local.set $lhCD (f64x2.splat (local.get $x0)))
      (local.set $thCD (f64x2.splat (local.get $trend0)))
      (local.set $shCD (v128.const f64x2 0 0))
      (local.set $bound (f64x2.splat (local.get $dSse)))
      (local.set $i (i32.const 1))
      (block $done
        (loop $points
          (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
          (local.set $xi (f64x2.splat (f64.load offset=512 (i32.shl (local.get $i) (i32.const 3)))))
        ;; grid point g, lanes AB
        (local.set $pt (f64x2.mul (local.get $phiAB) (local.get $tgAB)))
        (local.set $lp (f64x2.add (local.get $lgAB) (local.get $pt)))
        (local.set $e (f64x2.sub (local.get $xi) (local.get $lp)))
        (local.set $sgAB (f64x2.add (local.get $sgAB) (f64x2.mul (local.get $e) (local.get $e))))
        (local.set $lgAB (f64x2.add (local.get $lp) (f64x2.mul (local.get $ag) (local.get $e))))
        (local.set $tgAB (f64x2.add (local.get $pt) (f64x2.mul (local.get $bg) (local.get $e))))
        ;; grid point g, lanes CD
        (local.set $pt (f64x2.mul (local.get $phiCD) (local.get $tgCD)))
        (local.set $lp (f64x2.add (local.get $lgCD) (local.get $pt)))
        (local.set $e (f64x2.sub (local.get $xi) (local.get $lp)))
        (local.set $sgCD (f64x2.add (local.get $sgCD) (f64x2.mul (local.get $e) (local.get $e))))
        (local.set $lgCD (f64x2.add (local.get $lp) (f64x2.mul (local.get $ag) (local.get $e))))
        (local.set $tgCD (f64x2.add (local.get $pt) (f64x2.mul (local.get $bg) (local.get $e))))
        ;; grid point h, lanes AB
        (local.set $pt (f64x2.mul (local.get $phiAB) (local.get $thAB)))
        (local.set $lp (f64x2.add (local.get $lhAB) (local.get $pt)))
        (local.set $e (f64x2.sub (local.get $xi) (local.get $lp)))
        (local.set $shAB (f64x2.add (local.get $shAB) (f64x2.mul (local.get $e) (local.get $e))))
        (local.set $lhAB (f64x2.add (local.get $lp) (f64x2.mul (local.get $ah) (local.get $e))))
        (local.set $thAB (f64x2.add (local.get $pt) (f64x2.mul (local.get $bh) (local.get $e))))
        ;; grid point h, lanes CD
        (local.set $pt (f64x2.mul (local.get $phiCD) (local.get $thCD)))
        (local.set $lp (f64x2.add (local.get $lhCD) (local.get $pt)))
        (local.set $e (f64x2.sub (local.get $xi) (local.get $lp)))
        (local.set $shCD (f64x2.add (local.get $shCD) (f64x2.mul (local.get $e) (local.get $e))))
        (local.set $lhCD (f64x2.add (local.get $lp) (f64x2.mul (local.get $ah) (local.get $e))))
        (local.set $thCD (f64x2.add (local.get $pt) (f64x2.mul (local.get $bh) (local.get $e))))
          ;; none of the eight can be chosen any more
          (br_if $done (i64x2.all_true (v128.and
            (v128.and (f64x2.ge (local.get $sgAB) (local.get $bound)) (f64x2.ge (local.get $sgCD) (local.get $bound)))
            (v128.and (f64x2.ge (local.get $shAB) (local.get $bound)) (f64x2.ge (local.get $shCD) (local.get $bound))))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $points)))
    (if (f64.lt (f64x2.extract_lane 0 (local.get $sgAB)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 0 (local.get $sgAB)))
        (local.set $dLevel (f64x2.extract_lane 0 (local.get $lgAB)))
        (local.set $dTrend (f64x2.extract_lane 0 (local.get $tgAB)))
        (local.set $dPhi (f64.load offset=64 (i32.const 0)))))
    (if (f64.lt (f64x2.extract_lane 1 (local.get $sgAB)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 1 (local.get $sgAB)))
        (local.set $dLevel (f64x2.extract_lane 1 (local.get $lgAB)))
        (local.set $dTrend (f64x2.extract_lane 1 (local.get $tgAB)))
        (local.set $dPhi (f64.load offset=72 (i32.const 0)))))
    (if (f64.lt (f64x2.extract_lane 0 (local.get $sgCD)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 0 (local.get $sgCD)))
        (local.set $dLevel (f64x2.extract_lane 0 (local.get $lgCD)))
        (local.set $dTrend (f64x2.extract_lane 0 (local.get $tgCD)))
        (local.set $dPhi (f64.load offset=80 (i32.const 0)))))
    (if (f64.lt (f64x2.extract_lane 1 (local.get $sgCD)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 1 (local.get $sgCD)))
        (local.set $dLevel (f64x2.extract_lane 1 (local.get $lgCD)))
        (local.set $dTrend (f64x2.extract_lane 1 (local.get $tgCD)))
        (local.set $dPhi (f64.load offset=88 (i32.const 0)))))
    (if (i32.lt_s (local.get $g) (i32.const 14))
      (then
    (if (f64.lt (f64x2.extract_lane 0 (local.get $shAB)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 0 (local.get $shAB)))
        (local.set $dLevel (f64x2.extract_lane 0 (local.get $lhAB)))
        (local.set $dTrend (f64x2.extract_lane 0 (local.get $thAB)))
        (local.set $dPhi (f64.load offset=64 (i32.const 0)))))
    (if (f64.lt (f64x2.extract_lane 1 (local.get $shAB)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 1 (local.get $shAB)))
        (local.set $dLevel (f64x2.extract_lane 1 (local.get $lhAB)))
        (local.set $dTrend (f64x2.extract_lane 1 (local.get $thAB)))
        (local.set $dPhi (f64.load offset=72 (i32.const 0)))))
    (if (f64.lt (f64x2.extract_lane 0 (local.get $shCD)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 0 (local.get $shCD)))
        (local.set $dLevel (f64x2.extract_lane 0 (local.get $lhCD)))
        (local.set $dTrend (f64x2.extract_lane 0 (local.get $thCD)))
        (local.set $dPhi (f64.load offset=80 (i32.const 0)))))
    (if (f64.lt (f64x2.extract_lane 1 (local.get $shCD)) (f64.sub (local.get $dSse) (f64.const 1e-12)))
      (then
        (local.set $dSse (f64x2.extract_lane 1 (local.get $shCD)))
        (local.set $dLevel (f64x2.extract_lane 1 (local.get $lhCD)))
        (local.set $dTrend (f64x2.extract_lane 1 (local.get $thCD)))
        (local.set $dPhi (f64.load offset=88 (i32.const 0)))))
      ))
      (local.set $g (i32.add (local.get $g) (i32.const 2)))
      (br_if $pairs (i32.lt_s (local.get $g) (i32.const 15))))
    (f64.store offset=0 (i32.const 0) (local.get $dLevel))
    (f64.store offset=8 (i32.const 0) (local.get $dTrend))
    (f64.store offset=16 (i32.const 0) (local.get $dPhi))
    (f64.store offset=24 (i32.const 0) (local.get $dSse))))
