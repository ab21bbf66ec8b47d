"""Where does ptxas put the steady loop's WARPGROUP.DEPBAR.LE gsb0, 0x0 relative to MUFU.EX2?
usage: depbar.py file.ptx"""
import re, subprocess, sys
ptx = sys.argv[1]
cub = ptx + ".cubin"
subprocess.run(["ptxas", "-arch=sm_90a", ptx, "-o", cub], check=True)
sass = subprocess.run(["/tmp/cuobj/nvidia/cu13/bin/nvdisasm", "-c", cub], capture_output=True, text=True).stdout
ins = [re.sub(r"/\*.*?\*/", "", l).strip() for l in sass.splitlines()]
ins = [l for l in ins if l and not l.startswith(".") and not l.startswith("//")]
# the steady loop: the block with HGMMA ... tnspB (PV) preceded by a QK HGMMA, first occurrence with DEPBAR 0x1
start = next(i for i, l in enumerate(ins) if "DEPBAR.LE gsb0, 0x1" in l)
seq = []
for l in ins[start:start + 700]:
    if "DEPBAR" in l: seq.append("D0" if "0x0" in l else "D1")
    elif "MUFU.EX2" in l: seq.append("e")
    elif "F2FP" in l: seq.append("f")
    elif "HGMMA" in l: seq.append("H"); 
    elif "SYNCS.ARRIVE" in l: seq.append("A")
    elif "BAR.SYNC" in l: seq.append("S")
    if len([s for s in seq if s == "H"]) >= 1: break
out = "".join(x if len(x) == 1 else f"[{x}]" for x in seq)
print(re.sub(r"(e+)", lambda m: f"e{len(m.group(1))}", re.sub(r"(f+)", lambda m: f"f{len(m.group(1))}", out)))
