"""The trees of ``ismcts`` (:class:`cardenvs.agents.search.ISMCTSAgent`), compiled.

One :class:`SearchForest` holds every tree of one call: for each searched decision, one tree per seat. A node is a
number; two open-addressing hash tables hold the rest, so a tree of any game and budget lives in a few flat arrays
that numba kernels walk and grow without the interpreter:

* the **child table** maps (node, step key) to the node after the step. A step is keyed as the node's seat sees it:
  the seat that moved and the move (its own by the action, another seat's by its public number), and, in the
  searching seat's tree only, the 128-bit hash of what the searching seat observes after the step;
* the **edge table** maps (node, action) to the action's statistics at the node where the node's seat decides: how
  often it was chosen (``visits``), how often it was legal when the seat decided there (``available``) and the
  seat's summed return after it (``total``). Only actions that were legal at a node have an entry, so a game with
  hundreds of actions (Gin Slaughtre's 420) costs per node what its legal moves cost.

The Python side grows the tables before each kernel call, to at most half full, so a probe always ends. The
kernels are the descent's three steps: :meth:`SearchForest.select` (UCB in the mover's tree, or an untried action),
:meth:`SearchForest.advance` (every seat's tree past a step) and :meth:`SearchForest.backpropagate` (every decision
of the descents credited with its seat's return).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit


class EdgeStatistics(NamedTuple):
    """One action's statistics at a node where the node's seat decides."""

    #: how often the seat chose the action here
    visits: int
    #: how often the action was legal when the seat decided here
    available: int
    #: the seat's summed return after choosing it
    total: float


#: an empty slot of a hash table
EMPTY = -1
#: the least slots of a hash table
MIN_SLOTS = 1024
#: a table is grown (to the least power of two of slots that keeps it within this fraction) before it would pass
#: this fraction of its slots
MAX_LOAD = 0.5
#: decisions a descent's path holds before it is widened
INITIAL_PATH_LENGTH = 16
#: multipliers that spread a key's small numbers over the slots; products stay below 2**63 (node and step numbers
#: are below 2**31), so the hash neither wraps nor warns when it runs as plain Python (NUMBA_DISABLE_JIT=1)
NODE_MULTIPLIER = 40503
STEP_MULTIPLIER = 2654435761


@njit(cache=True)
def _child_slot(parents, steps, first_keys, second_keys, parent, step, first, second):
    """The slot of the child table holding (``parent``, ``step``, ``first``, ``second``), or the empty slot where it
    would go."""
    mask = parents.shape[0] - 1
    slot = (parent * NODE_MULTIPLIER ^ step * STEP_MULTIPLIER ^ first ^ second) & mask
    while parents[slot] != EMPTY:
        if (parents[slot] == parent and steps[slot] == step and first_keys[slot] == first
                and second_keys[slot] == second):
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _edge_slot(nodes, actions, node, action):
    """The slot of the edge table holding (``node``, ``action``), or the empty slot where it would go."""
    mask = nodes.shape[0] - 1
    slot = (node * NODE_MULTIPLIER ^ action * STEP_MULTIPLIER) & mask
    while nodes[slot] != EMPTY:
        if nodes[slot] == node and actions[slot] == action:
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _rehash_children(parents, steps, first_keys, second_keys, children, new_parents, new_steps, new_first,
                     new_second, new_children):
    """Insert every entry of the child table into the (larger, empty) new one."""
    for slot in range(parents.shape[0]):
        if parents[slot] != EMPTY:
            to = _child_slot(new_parents, new_steps, new_first, new_second, parents[slot], steps[slot],
                             first_keys[slot], second_keys[slot])
            new_parents[to] = parents[slot]
            new_steps[to] = steps[slot]
            new_first[to] = first_keys[slot]
            new_second[to] = second_keys[slot]
            new_children[to] = children[slot]


@njit(cache=True)
def _rehash_edges(nodes, actions, visits, available, totals, new_nodes, new_actions, new_visits, new_available,
                  new_totals):
    """Insert every entry of the edge table into the (larger, empty) new one."""
    for slot in range(nodes.shape[0]):
        if nodes[slot] != EMPTY:
            to = _edge_slot(new_nodes, new_actions, nodes[slot], actions[slot])
            new_nodes[to] = nodes[slot]
            new_actions[to] = actions[slot]
            new_visits[to] = visits[slot]
            new_available[to] = available[slot]
            new_totals[to] = totals[slot]


@njit(cache=True)
def _select(rows, movers, masks, at, uniforms, exploration, low, high, edge_nodes, edge_actions, visits, available,
            totals, path_nodes, path_seats, path_actions, path_lengths, chosen, expanded):
    """For each row, the mover's choice at its node (``at[row, mover]``), appended to the row's path: an untried
    legal action picked by ``uniforms`` (then ``expanded``), else the legal action of the highest UCB value, the
    first of equals. Every legal action's ``available`` count goes up. Returns the edges added."""
    added = 0
    for index in range(rows.shape[0]):
        row, seat = rows[index], movers[index]
        node = at[row, seat]
        untried = 0
        for action in range(masks.shape[1]):
            if masks[index, action]:
                slot = _edge_slot(edge_nodes, edge_actions, node, action)
                if edge_nodes[slot] == EMPTY:
                    edge_nodes[slot] = node
                    edge_actions[slot] = action
                    added += 1
                available[slot] += 1
                if visits[slot] == 0:
                    untried += 1
        if untried:
            pick = min(int(uniforms[index] * untried), untried - 1)
            for action in range(masks.shape[1]):
                if masks[index, action] and visits[_edge_slot(edge_nodes, edge_actions, node, action)] == 0:
                    if pick == 0:
                        chosen[index] = action
                        break
                    pick -= 1
            expanded[index] = True
        else:
            spread = high[row] - low[row]
            scale = exploration * (spread if spread > 0.0 else 1.0)
            best = -np.inf
            for action in range(masks.shape[1]):
                if masks[index, action]:
                    slot = _edge_slot(edge_nodes, edge_actions, node, action)
                    value = totals[slot] / visits[slot] + scale * math.sqrt(math.log(available[slot]) / visits[slot])
                    if value > best:
                        best = value
                        chosen[index] = action
            expanded[index] = False
        length = path_lengths[row]
        path_nodes[row, length] = node
        path_seats[row, length] = seat
        path_actions[row, length] = chosen[index]
        path_lengths[row] = length + 1
    return added


@njit(cache=True)
def _advance(rows, movers, actions, observers, observed, public, num_actions, at, next_node, node_seats,
             node_searches, parents, steps, first_keys, second_keys, children):
    """Move every seat's node of each row (``at[row]``) to its child after the step: ``movers[i]`` took
    ``actions[i]``, after which the row's searching seat (``observers[i]``) observed what ``observed[i]`` is the
    hash of. New children get the numbers from ``next_node`` on; returns the next free number."""
    for index in range(rows.shape[0]):
        row, mover, action = rows[index], movers[index], actions[index]
        for seat in range(at.shape[1]):
            move = action if seat == mover else public[action]
            first = observed[index, 0] if seat == observers[index] else 0
            second = observed[index, 1] if seat == observers[index] else 0
            parent = at[row, seat]
            step = mover * num_actions + move
            slot = _child_slot(parents, steps, first_keys, second_keys, parent, step, first, second)
            if parents[slot] == EMPTY:
                parents[slot] = parent
                steps[slot] = step
                first_keys[slot] = first
                second_keys[slot] = second
                children[slot] = next_node
                node_seats[next_node] = seat
                node_searches[next_node] = node_searches[parent]
                next_node += 1
            at[row, seat] = children[slot]
    return next_node


@njit(cache=True)
def _backpropagate(path_nodes, path_seats, path_actions, path_lengths, returns, edge_nodes, edge_actions, visits,
                   totals, low, high):
    """Credit every decision of every row's path with the return of the seat that took it (``returns[row, seat]``),
    and widen each row's range of returns."""
    for row in range(returns.shape[0]):
        for index in range(path_lengths[row]):
            slot = _edge_slot(edge_nodes, edge_actions, path_nodes[row, index], path_actions[row, index])
            visits[slot] += 1
            totals[slot] += returns[row, path_seats[row, index]]
        for seat in range(returns.shape[1]):
            low[row] = min(low[row], returns[row, seat])
            high[row] = max(high[row], returns[row, seat])


def _slots_for(entries: int) -> int:
    """The power of two of slots that holds ``entries`` at most :data:`MAX_LOAD` full."""
    return max(MIN_SLOTS, 1 << math.ceil(math.log2(entries / MAX_LOAD + 1)))


class SearchForest:
    """Every tree of one ``ismcts`` call: per searched decision (a *search*), one tree per seat.

    The root of search ``s``'s tree for seat ``p`` is node ``s * num_players + p``. ``path_*`` hold the decisions of
    each search's current descent, in order (:meth:`begin_descents` empties them).

    Args:
        seats: the searching seat of each search.
        num_players: the game's seats.
        num_actions: the game's actions.
        public: what the other seats see of each action, a number per action (``ISMCTSAgent.public_actions``).
        opposed: bool ``[S, P]``, per search the seats a playout opponent plays instead of a tree, or None.
    """

    def __init__(self, seats: np.ndarray, num_players: int, num_actions: int, public: np.ndarray,
                 opposed: np.ndarray | None = None):
        self.seats = np.asarray(seats, np.int64)
        self.num_searches = len(self.seats)
        self.num_players = num_players
        self.num_actions = num_actions
        self.public = np.asarray(public, np.int64)
        self.opposed = opposed
        self.roots = np.arange(self.num_searches * num_players, dtype=np.int64).reshape(self.num_searches,
                                                                                          num_players)
        self.node_count = self.roots.size
        self.node_seats = np.tile(np.arange(num_players, dtype=np.int64), self.num_searches)
        self.node_searches = np.repeat(np.arange(self.num_searches, dtype=np.int64), num_players)
        self._children_table(MIN_SLOTS)
        self.child_count = 0
        self._edge_table(MIN_SLOTS)
        self.edge_count = 0
        self.low = np.full(self.num_searches, np.inf)
        self.high = np.full(self.num_searches, -np.inf)
        self.path_nodes = np.zeros((self.num_searches, INITIAL_PATH_LENGTH), np.int64)
        self.path_seats = np.zeros_like(self.path_nodes)
        self.path_actions = np.zeros_like(self.path_nodes)
        self.path_lengths = np.zeros(self.num_searches, np.int64)

    def _children_table(self, slots: int) -> None:
        self.parents = np.full(slots, EMPTY, np.int64)
        self.steps = np.zeros(slots, np.int64)
        self.first_keys = np.zeros(slots, np.int64)
        self.second_keys = np.zeros(slots, np.int64)
        self.children = np.zeros(slots, np.int64)

    def _edge_table(self, slots: int) -> None:
        self.edge_nodes = np.full(slots, EMPTY, np.int64)
        self.edge_actions = np.zeros(slots, np.int64)
        self.visits = np.zeros(slots, np.int64)
        self.available = np.zeros(slots, np.int64)
        self.totals = np.zeros(slots, np.float64)

    def _reserve(self, children: int, edges: int, path_rows: np.ndarray) -> None:
        """Grow what the next kernel call may fill: ``children`` more child entries (and nodes), ``edges`` more
        edges, one more decision on the paths of ``path_rows``."""
        if (self.child_count + children) > MAX_LOAD * len(self.parents):
            old = (self.parents, self.steps, self.first_keys, self.second_keys, self.children)
            self._children_table(_slots_for(self.child_count + children))
            _rehash_children(*old, self.parents, self.steps, self.first_keys, self.second_keys, self.children)
        if self.node_count + children > len(self.node_seats):
            size = 2 * (self.node_count + children)
            self.node_seats = np.resize(self.node_seats, size)
            self.node_searches = np.resize(self.node_searches, size)
        if (self.edge_count + edges) > MAX_LOAD * len(self.edge_nodes):
            old = (self.edge_nodes, self.edge_actions, self.visits, self.available, self.totals)
            self._edge_table(_slots_for(self.edge_count + edges))
            _rehash_edges(*old, self.edge_nodes, self.edge_actions, self.visits, self.available, self.totals)
        if len(path_rows) and self.path_lengths[path_rows].max() >= self.path_nodes.shape[1]:
            width = self.path_nodes.shape[1]
            for name in ("path_nodes", "path_seats", "path_actions"):
                grown = np.zeros((self.num_searches, 2 * width), np.int64)
                grown[:, :width] = getattr(self, name)
                setattr(self, name, grown)

    def begin_descents(self) -> np.ndarray:
        """Empty every path; the node of every seat at the start of a descent, int64 ``[S, P]`` (the roots)."""
        self.path_lengths[:] = 0
        return self.roots.copy()

    def select(self, rows: np.ndarray, movers: np.ndarray, masks: np.ndarray, at: np.ndarray, uniforms: np.ndarray,
               exploration: float) -> tuple[np.ndarray, np.ndarray]:
        """Each row's action at its mover's node, and whether it is new there (the descent ends with a playout).

        Args:
            rows: the searches deciding.
            movers: the seat to act in each.
            masks: bool ``[len(rows), A]``, the legal actions of each.
            at: int64 ``[S, P]``, every search's node of every seat.
            uniforms: a number in [0, 1) per row, which picks among untried actions.
            exploration: the UCB constant, in units of the spread of the search's returns.
        """
        self._reserve(0, int(np.count_nonzero(masks)), rows)
        chosen = np.zeros(len(rows), np.int64)
        expanded = np.zeros(len(rows), np.bool_)
        self.edge_count += _select(rows, movers, masks, at, uniforms, float(exploration), self.low, self.high,
                                   self.edge_nodes, self.edge_actions, self.visits, self.available, self.totals,
                                   self.path_nodes, self.path_seats, self.path_actions, self.path_lengths, chosen,
                                   expanded)
        return chosen, expanded

    def advance(self, rows: np.ndarray, movers: np.ndarray, actions: np.ndarray, observed: np.ndarray,
                at: np.ndarray) -> None:
        """Move every seat's node of each row past one step (module docstring).

        Args:
            rows: the searches whose game goes on after the step.
            movers: the seat that moved in each.
            actions: its action.
            observed: int64 ``[len(rows), 2]``, the hash of what each search's searching seat observes after it.
            at: int64 ``[S, P]``, every search's node of every seat, moved in place.
        """
        self._reserve(len(rows) * self.num_players, 0, rows[:0])
        before = self.node_count
        self.node_count = _advance(rows, movers, actions, self.seats[rows], observed, self.public, self.num_actions,
                                   at, self.node_count, self.node_seats, self.node_searches, self.parents,
                                   self.steps, self.first_keys, self.second_keys, self.children)
        self.child_count += self.node_count - before

    def backpropagate(self, returns: np.ndarray) -> None:
        """Credit every decision of every search's descent with its seat's return, ``returns[search, seat]``."""
        _backpropagate(self.path_nodes, self.path_seats, self.path_actions, self.path_lengths, returns,
                       self.edge_nodes, self.edge_actions, self.visits, self.totals, self.low, self.high)

    def root_statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """At the root of each search's searching seat: how often the seat chose each action, int64 ``[S, A]``, and
        its summed return after each, float64 ``[S, A]``."""
        visits = np.zeros((self.num_searches, self.num_actions), np.int64)
        totals = np.zeros((self.num_searches, self.num_actions), np.float64)
        used = np.flatnonzero(self.edge_nodes != EMPTY)
        nodes = self.edge_nodes[used]
        at_root = nodes < self.roots.size
        used, nodes = used[at_root], nodes[at_root]
        searching = self.node_seats[nodes] == self.seats[self.node_searches[nodes]]
        used, nodes = used[searching], nodes[searching]
        visits[self.node_searches[nodes], self.edge_actions[used]] = self.visits[used]
        totals[self.node_searches[nodes], self.edge_actions[used]] = self.totals[used]
        return visits, totals

    def statistics(self, node: int) -> dict[int, EdgeStatistics]:
        """The statistics of every action that was legal where ``node``'s seat decided at it, by action."""
        slots = np.flatnonzero(self.edge_nodes == node)
        return {int(self.edge_actions[slot]): EdgeStatistics(int(self.visits[slot]), int(self.available[slot]),
                                                             float(self.totals[slot])) for slot in slots}

    def children_of(self, node: int) -> dict[tuple, int]:
        """The children of ``node`` by their key: (mover, move) in another seat's tree; (mover, move, first hash,
        second hash) in the searching seat's."""
        search = int(self.node_searches[node])
        observing = self.node_seats[node] == self.seats[search]
        found = {}
        for slot in np.flatnonzero(self.parents == node).tolist():
            mover, move = divmod(int(self.steps[slot]), self.num_actions)
            key = (mover, move, int(self.first_keys[slot]), int(self.second_keys[slot])) if observing else (mover, move)
            found[key] = int(self.children[slot])
        return found
