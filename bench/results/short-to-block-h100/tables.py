# Per shape: median time (us) in each of the runs given, then the mean floor fraction; last line: geometric mean.
# Usage: python3 tables.py RUN.json [RUN.json ...]  (kevo eval --json records of the same files)
import json,sys,collections,math
t=collections.OrderedDict(); names=[]
for f in sys.argv[1:]:
    d=json.load(open(f))
    for r in d['results']:
        n=r['name']
        if n not in names: names.append(n)
        for s in r['shapes']:
            t.setdefault(s['shape'],{}).setdefault(n,[]).append(s)
names=sorted(names)
def us(s):
    return s['candidate']['medianMs']*1000
print('%-12s'%'shape'+''.join('%20s'%n for n in names))
gm={n:0 for n in names}
for sh,d in t.items():
    row='%-12s'%sh
    for n in names:
        xs=d[n]; fl=sum(x['floorFraction'] for x in xs)/len(xs); gm[n]+=math.log(fl)
        row+='%15s %.2f'%('/'.join('%.2f'%us(x) for x in xs),fl)
    print(row)
print('%-12s'%'floor gm'+''.join('%20.3f'%math.exp(gm[n]/len(t)) for n in names))
