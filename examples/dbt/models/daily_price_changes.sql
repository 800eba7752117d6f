-- How each product's own price (model_id null) moved per day: the price before the day's first change, the price
-- after its last, and how many changes the day had. Only days with a change have a row; the first price ever seen
-- counts as a change from nothing (price_before_major null).
with changes as (
    select
        h.pipeline,
        h.shop_id,
        h.item_id,
        cast(h.loaded_at as date) as day,
        h.id,
        h.previous_price_major,
        h.price_major,
        h.currency
    from {{ source('scrape_etl', 'marketplace_price_history') }} as h
    where h.model_id is null
),

ordered as (
    select
        c.*,
        row_number() over (partition by pipeline, shop_id, item_id, day order by id) as first_of_day,
        row_number() over (partition by pipeline, shop_id, item_id, day order by id desc) as last_of_day,
        count(*) over (partition by pipeline, shop_id, item_id, day) as changes
    from changes as c
)

select
    o.pipeline,
    o.shop_id,
    o.item_id,
    o.day,
    o.currency,
    max(case when o.first_of_day = 1 then o.previous_price_major end) as price_before_major,
    max(case when o.last_of_day = 1 then o.price_major end) as price_after_major,
    max(case when o.last_of_day = 1 then o.price_major end)
    - max(case when o.first_of_day = 1 then o.previous_price_major end) as change_major,
    max(o.changes) as changes
from ordered as o
group by o.pipeline, o.shop_id, o.item_id, o.day, o.currency
